import { fstatSync, closeSync } from 'node:fs';
import type Docker from 'dockerode';
import { logStream, openLogRead } from '../../logFile.ts';
import type { ErpRunSpec } from '../runtime.ts';

/**
 * The ERP in a container gets no --logfile and no mount of its log folder (root's alone): what it
 * prints (where Odoo logs without one: odoo/netsvc.py) reaches the instance's log through the
 * engine, appended by the executor without following a link (logFile.ts).
 */

/** The log's last change, in whole seconds: where a re-attached follower starts (a line or two may repeat, none is lost). */
function lastWrite(spec: Pick<ErpRunSpec, 'root' | 'logFile'>): number {
  const fd = openLogRead(spec.root, spec.logFile);
  if (fd === null) return 0;
  try {
    return Math.floor(fstatSync(fd).mtimeMs / 1000);
  } finally {
    closeSync(fd);
  }
}

/** A container's output being appended to the log. */
export interface OutputFollower {
  /** Stops following (the container is being stopped or removed, or the executor closes). */
  stop(): void;
  /** Settles once the container's output ended (it exited) or `stop` was called. */
  finished: Promise<void>;
}

/**
 * Follows a container's output into the log, live (the log viewer streams it), until the
 * container ends or `stop` is called. `fromStart`: all of it (a container just started);
 * otherwise from the log's last write (a server an earlier executor started).
 */
export async function followOutput(docker: Docker, container: Docker.Container, spec: Pick<ErpRunSpec, 'root' | 'logFile'>, fromStart: boolean): Promise<OutputFollower> {
  const since = fromStart ? 0 : lastWrite(spec);
  const stream = (await container.logs({ stdout: true, stderr: true, follow: true, since })) as NodeJS.ReadableStream & { destroy?: () => void };
  const sink = logStream(spec.root, spec.logFile);
  docker.modem.demuxStream(stream, sink, sink);
  const finished = new Promise<void>((done) => {
    sink.once('close', done);
    sink.once('error', () => done());
  });
  let ended = false;
  const stop = () => {
    if (ended) return;
    ended = true;
    stream.destroy?.();
    sink.end();
  };
  stream.on('end', stop);
  stream.on('close', stop);
  stream.on('error', stop);
  return { stop, finished };
}
