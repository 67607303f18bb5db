import { request } from 'node:http';
import type { Duplex } from 'node:stream';

export interface UpgradeAnswer {
  status: number;
  /** The upgraded connection, when the server answered 101. */
  socket?: Duplex;
}

/** Asks `url` to upgrade to `protocol` with `headers`; resolves with the status and, on 101, the connection. */
export function upgradeRequest(url: string, headers: Record<string, string>, protocol = 'websocket'): Promise<UpgradeAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: { connection: 'Upgrade', upgrade: protocol, 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
      timeout: 10_000,
    });
    req.on('upgrade', (res, socket, head) => {
      // What the server sent right behind its 101 in the same packet (a WebSocket's first frame,
      // on a busy machine) comes as `head`, not as data: put it back for readBytes.
      if (head.length > 0) socket.unshift(head);
      resolve({ status: res.statusCode ?? 0, socket });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to the upgrade of ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/** The first `length` bytes the socket sends, within `timeoutMs`. */
export function readBytes(socket: Duplex, length: number, timeoutMs = 30_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.off('data', onData);
      reject(new Error(`got ${got.length} of ${length} bytes in ${timeoutMs} ms`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= length) {
        clearTimeout(timer);
        socket.off('data', onData);
        resolve(got.subarray(0, length));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}
