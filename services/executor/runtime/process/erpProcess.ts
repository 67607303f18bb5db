import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SystemUser } from '#shared/local/systemUser.ts';
import { openLogAppend } from '../../logFile.ts';
import { writeErpConfig } from '../erpConfigFile.ts';
import type { ErpRunSpec } from '../runtime.ts';
import { erpEnv } from './erpCommand.ts';
import { isServerAlive, type PidRecord } from './pidFile.ts';

/**
 * Runs the ERP in a process group of its own (so its workers are signalled with it, and a
 * Ctrl-C or crash of the executor does not reach it), in the instance's folder, as `user` (the
 * tenant's account, laid out by tenantFolders.ts) when one is given. It gets no --logfile: its
 * stdout and stderr (where Odoo logs without one: odoo/netsvc.py) go to the log file, opened here
 * by root for appending without following a link, in a folder only root writes. Resolves once
 * the process runs. `config`: the options of its configuration file (erpOptions.ts).
 */
export async function spawnErp(command: string, args: string[], spec: ErpRunSpec, user: SystemUser | null, config: Record<string, string>): Promise<ChildProcess & { pid: number }> {
  const cwd = resolve(spec.dataDir);
  await writeErpConfig(spec.dataDir, config, user); // `-c` in erpArgs, readable by the ERP's account alone
  const log = openLogAppend(spec.root, spec.logFile);
  let child: ChildProcess;
  try {
    const as = user ? { uid: user.uid, gid: user.gid } : {};
    const env = user ? { ...erpEnv(spec), HOME: join(cwd, 'home'), USER: user.name, LOGNAME: user.name } : erpEnv(spec);
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
