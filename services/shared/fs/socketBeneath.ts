import { closeSync, fstatSync } from 'node:fs';
import { Agent, type AgentOptions } from 'node:http';
import { connect, Socket } from 'node:net';
import { at, LinkRefusedError, O_PATH, openFileBeneath } from './beneath.ts';

/**
 * A unix socket in a folder another account writes (a tool's), opened by handle without following
 * a link and checked to be a socket of `uid`: that account could otherwise swap its name for a
 * link to any socket of the machine (the container engine's API), and root would talk to it. The
 * caller connects through `/proc/self/fd/<fd>`, which reaches the socket checked, then closes it.
 */
export function openSocketBeneath(base: string, relative: string, uid: number): number {
  const fd = openFileBeneath(base, relative, O_PATH);
  const stats = fstatSync(fd);
  if (!stats.isSocket() || stats.uid !== uid) {
    closeSync(fd);
    throw new LinkRefusedError(`${base}/${relative}`, `it is not a socket of uid ${uid}`);
  }
  return fd;
}

/** Connects to the socket `relative` below `base` once it passed openSocketBeneath. */
export function connectBeneath(base: string, relative: string, uid: number): Socket {
  const fd = openSocketBeneath(base, relative, uid);
  const socket = connect({ path: at(fd) });
  let closed = false;
  const release = () => {
    if (closed) return;
    closed = true;
    closeSync(fd);
  };
  socket.once('connect', release);
  socket.once('error', release);
  socket.once('close', release);
  return socket;
}

/** An HTTP agent whose every connection goes through connectBeneath: for a proxy to such a socket. */
export class SocketBeneathAgent extends Agent {
  constructor(
    private readonly where: () => { base: string; relative: string; uid: number },
    options: AgentOptions = {},
  ) {
    super(options);
  }

  /** A refused or missing socket fails the request like a connection refused (the proxy's 502), not with a throw. */
  override createConnection(): Socket {
    try {
      const { base, relative, uid } = this.where();
      return connectBeneath(base, relative, uid);
    } catch (error) {
      const failed = new Socket();
      process.nextTick(() => failed.destroy(error as Error));
      return failed;
    }
  }
}
