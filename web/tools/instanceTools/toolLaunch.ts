import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SystemUser } from '#shared/local/systemUser.ts';
import type { InstanceToolLaunch, InstanceToolSpec } from './instanceToolSpec.ts';
import type { ProxyTarget } from '../toolProxy.ts';

/** Linux's bound on a unix socket's path is 108 bytes; a deep FORJA_DATA_DIR and a long slug pass it. */
const SOCKET_PATH_MAX = 100;

/** The path under which web serves a tool of an instance (no trailing slash). */
export const toolBasePath = (slug: string, kind: string): string => `/instances/${slug}/${kind}/proxy`;

/** A free port on 127.0.0.1 (asked of the kernel, released for the tool to take). */
function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A folder the tool's user owns and nobody else may enter (0700); root, which web may be, still reaches it. */
function privateFolder(path: string, user: SystemUser | null): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
  if (user) chownSync(path, user.uid, user.gid);
  return path;
}

/** Where a tool's process id is kept while it runs: a web that died without stopping its tools finds them there. */
export const pidFile = (workDir: string): string => join(workDir, 'tool.pid');

/**
 * Ends a tool left running by a web that died without stopping it (its socket is gone, so nothing
 * could reach it again). Only a process whose working folder is the tool's own is taken for it:
 * the id may have been reused by another process since.
 */
export function stopLeftover(workDir: string): void {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile(workDir), 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 1 || readlinkSync(`/proc/${pid}/cwd`) !== workDir) return;
  } catch {
    return;
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone in the meantime.
  }
}

/**
 * Prepares one start of a tool: its own folder under the instance's (`tools/<kind>`, the tool user's),
 * a fresh secret, and a port or a socket in a folder only that user and Forja can reach.
 */
export async function prepareLaunch(spec: InstanceToolSpec, dataDir: string, slug: string, user: SystemUser | null): Promise<InstanceToolLaunch> {
  const instanceDir = join(dataDir, 'instances', slug);
  const sourceDir = join(instanceDir, 'src');
  mkdirSync(join(instanceDir, 'tools'), { recursive: true });
  const workDir = privateFolder(join(instanceDir, 'tools', spec.kind), user);
  stopLeftover(workDir);
  let socketPath = join(workDir, 'tool.sock');
  if (socketPath.length > SOCKET_PATH_MAX) socketPath = join(privateFolder(mkdtempSync(join(tmpdir(), 'forja-tool-')), user), 'tool.sock');
  rmSync(socketPath, { force: true });
  return {
    slug,
    instanceDir,
    sourceDir: existsSync(sourceDir) ? sourceDir : null,
    workDir,
    port: spec.listen === 'port' ? await freeLocalPort() : 0,
    socketPath,
    token: randomBytes(32).toString('hex'),
    basePath: toolBasePath(slug, spec.kind),
  };
}

/** Where the proxy sends the tool's requests. */
export const launchTarget = (spec: InstanceToolSpec, launch: InstanceToolLaunch): ProxyTarget =>
  spec.listen === 'socket' ? { socketPath: launch.socketPath } : `http://127.0.0.1:${launch.port}`;

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
 * Waits until the tool answers its ready path below 500, with its secret. Gives up when `exited`
 * says the process is gone or after `timeoutMs`, saying which.
 */
export async function waitUntilReady(spec: InstanceToolSpec, launch: InstanceToolLaunch, exited: () => boolean, timeoutMs: number): Promise<void> {
  const path = spec.stripBasePath ? spec.readyPath : `${launch.basePath}${spec.readyPath}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await probe(launchTarget(spec, launch), path, spec.injectHeaders(launch.token));
    if (status !== null && status < 500) return;
    if (exited()) throw new Error(`${spec.label} exited while starting`);
    if (Date.now() > deadline) throw new Error(`${spec.label} did not answer ${path} within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}
