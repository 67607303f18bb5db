import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { SystemUser } from '#shared/local/systemUser.ts';
import { handFoldersTo } from '../erpAccount.ts';
import { writeErpConfig } from '../erpConfigFile.ts';
import type { ErpRunSpec } from '../runtime.ts';
import { erpEnv } from './erpCommand.ts';
import { isServerAlive, type PidRecord } from './pidFile.ts';

/**
 * Runs the ERP in a process group of its own (so its workers are signalled with it, and a
 * Ctrl-C or crash of the executor does not reach it), in the instance's folder, with stdout and
 * stderr appended to its log file, as `user` when one is given (the executor runs as root).
 * Resolves once the process runs.
 */
export async function spawnErp(command: string, args: string[], spec: ErpRunSpec, user: SystemUser | null = null): Promise<ChildProcess & { pid: number }> {
  const cwd = resolve(spec.dataDir);
  await writeErpConfig(spec.dataDir); // `-c` in erpArgs
  mkdirSync(dirname(resolve(spec.logFile)), { recursive: true });
  const log = openSync(spec.logFile, 'a');
  handFoldersTo(user, spec); // after the log file exists: the ERP appends to it too
  let child: ChildProcess;
  try {
    const as = user ? { uid: user.uid, gid: user.gid } : {};
    const env = user ? { ...erpEnv(spec), HOME: cwd, USER: user.name, LOGNAME: user.name } : erpEnv(spec);
    child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', log, log], ...as });
  } finally {
    closeSync(log); // the child has its own copy
  }
  await new Promise<void>((resolveSpawn, reject) => {
    child.once('spawn', resolveSpawn);
    child.once('error', reject);
  });
  return child as ChildProcess & { pid: number };
}

/** Waits up to `timeoutMs` for the server to be gone; false when it still runs. */
export async function waitUntilGone(record: PidRecord, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isServerAlive(record)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolveLater) => setTimeout(resolveLater, 50));
  }
  return true;
}
