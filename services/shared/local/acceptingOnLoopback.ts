import { connect } from 'node:net';

/** Whether something accepts TCP connections on 127.0.0.1:port: a tool's port already taken before it starts, or its readiness after. */
export function acceptingOnLoopback(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
