import { createServer, type RequestListener, type Server } from 'node:http';

export interface Listening {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Listens on host:port (port 0 = any free port) and closes gracefully, ending idle keep-alive sockets. */
export function listen(handler: RequestListener, host: string, port: number): Promise<Listening> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} on ${host} is already in use: stop what holds it or choose another port`) : error),
    );
    server.listen(port, host, () => {
      const address = server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      resolve({
        server,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            setTimeout(() => server.closeAllConnections(), 2000).unref();
          }),
      });
    });
  });
}
