import { closeSync, fstatSync } from 'node:fs';
import { request } from 'node:http';
import { at, O_PATH, openFileBeneath } from '#shared/fs/beneath.ts';
import type { InstanceToolLaunch, InstanceToolSpec } from './instanceToolSpec.ts';
import { toolUid } from './toolLaunch.ts';
import type { ProxyTarget } from '../toolProxy.ts';

/**
 * Web (root, maybe) never connects to a tool by a path in the tenant's folder: the tenant could
 * swap the socket's name for a link to any socket on the machine (the container engine's API, say).
 * Once the tool has bound its socket, web opens it by handle (O_PATH, without following a link),
 * checks it is a socket of the tool's account, and from then on connects through that handle
 * (/proc/self/fd/N reaches the bound socket even if its name is later replaced), which stays
 * open while the tool runs.
 */
export class ToolSocketRefused extends Error {
  override readonly name = 'ToolSocketRefused';
}

/** The tool's socket opened by handle, null when it is not there yet; refused when something else is there. */
export function openToolSocket(launch: InstanceToolLaunch): number | null {
  let fd: number;
  try {
    // O_NOFOLLOW is always added below: with O_PATH a link is opened as itself, which fstat tells.
    fd = openFileBeneath(launch.socket.base, launch.socket.relative, O_PATH);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const stats = fstatSync(fd);
  if (!stats.isSocket() || stats.uid !== toolUid(launch.owner)) {
    closeSync(fd);
    throw new ToolSocketRefused(`${launch.socketPath} is not a socket of the tool's account (a link or another file was put in its place): refused`);
  }
  return fd;
}

/**
 * How long a stopped tool's handle stays open. A request that got the target just before the stop
 * may connect a moment later: through the still-open handle it meets a socket nobody listens on
 * (refused), where a descriptor number already closed could by then be another instance's socket.
 */
const CLOSE_AFTER_MS = 60_000;

/** Closes the socket's handle (the tool stopped), a minute later (see CLOSE_AFTER_MS). */
export function closeToolSocket(launch: InstanceToolLaunch): void {
  const fd = launch.socketHandle;
  if (fd === null) return;
  launch.socketHandle = null;
  setTimeout(() => closeSync(fd), CLOSE_AFTER_MS).unref();
}

/** Where the proxy sends the tool's requests: its port, or its socket through the handle web checked. */
export function launchTarget(spec: InstanceToolSpec, launch: InstanceToolLaunch): ProxyTarget {
  if (spec.listen === 'port') return `http://127.0.0.1:${launch.port}`;
  if (launch.socketHandle === null) throw new Error(`${spec.label}'s socket has not been checked yet`);
  return { socketPath: at(launch.socketHandle) };
}

/** The status of one GET of `path` on the tool, or null when nothing answers yet. */
function probe(target: ProxyTarget, path: string, headers: Record<string, string>): Promise<number | null> {
  const where = typeof target === 'string' ? { host: '127.0.0.1', port: Number(new URL(target).port) } : { socketPath: target.socketPath };
  return new Promise((resolve) => {
    const req = request({ ...where, path, headers, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

/**
 * Waits until the tool answers its ready path below 500, with its secret: a socket is checked
 * (openToolSocket) before it is ever connected to. Gives up when `exited` says the process is
 * gone, after `timeoutMs`, or at once when the socket's name holds something else.
 */
export async function waitUntilReady(spec: InstanceToolSpec, launch: InstanceToolLaunch, exited: () => boolean, timeoutMs: number): Promise<void> {
  const path = spec.stripBasePath ? spec.readyPath : `${launch.basePath}${spec.readyPath}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spec.listen === 'socket' && launch.socketHandle === null) launch.socketHandle = openToolSocket(launch);
    const ready = spec.listen === 'port' || launch.socketHandle !== null;
    const status = ready ? await probe(launchTarget(spec, launch), path, spec.injectHeaders(launch.token)) : null;
    if (status !== null && status < 500) return;
    if (exited()) throw new Error(`${spec.label} exited while starting`);
    if (Date.now() > deadline) throw new Error(`${spec.label} did not answer ${path} within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}
