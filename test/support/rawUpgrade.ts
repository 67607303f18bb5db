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
    req.on('upgrade', (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to the upgrade of ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/** The first `length` bytes the socket sends. */
export function readBytes(socket: Duplex, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= length) {
        socket.off('data', onData);
        resolve(got.subarray(0, length));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}
