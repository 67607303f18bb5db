import { request } from 'node:http';

export interface PlainResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An HTTP request to a server on 127.0.0.1 sent from another loopback address (127.0.0.2, …), as
 * a second client would: fetch cannot choose its source address.
 */
export function requestFrom(localAddress: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, localAddress, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 15 s`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

/** How many responses had each status: `{ 401: 6, 429: 54 }`. */
export function statuses(responses: PlainResponse[]): Record<number, number> {
  return responses.map((res) => res.status).reduce<Record<number, number>>((count, status) => ({ ...count, [status]: (count[status] ?? 0) + 1 }), {});
}
