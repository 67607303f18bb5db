import { basename } from 'node:path';
import type { SystemUser } from '#shared/local/systemUser.ts';
import { abortError } from '../../abortError.ts';
import { fileSize, logTail } from '../../logTail.ts';
import { groupMembers, terminateGroup } from '#shared/platform/processGroup.ts';
import { ErpRunError, type ErpRunSpec } from '../runtime.ts';
import { erpArgs, processConfigOptions } from './erpCommand.ts';
import { spawnErp } from './erpProcess.ts';
import { oneShotRecordOf, readOneShotFile, removePidFile, survivingGroup, writePidFile } from './pidFile.ts';

/**
 * Runs the ERP once (`command`, a program and its first arguments, then `run.subcommand` when
 * given (odoo/cli/command.py reads the command from the first argument), the instance's
 * arguments, then `args`) in a process group of its
 * own, recorded in `pidFile` while it runs, and waits for it. The run ends when its leader exits:
 * what it left in its group is stopped too. An abort stops the group (SIGTERM, SIGKILL after
 * `graceMs`) and rejects with the abort's reason; a non-zero exit rejects with ErpRunError and the
 * log's tail.
 */
export async function runOneShot(spec: ErpRunSpec, command: readonly string[], args: string[], run: { user: SystemUser | null; pidFile: string; graceMs: number; signal?: AbortSignal | undefined; subcommand?: string }): Promise<void> {
  const [program = '', ...prefix] = command;
  const leading = run.subcommand ? [run.subcommand] : [];
  const what = `${basename(command.at(-1) ?? program)} ${[...leading, ...args].join(' ')}`.trim();
  const { signal } = run;
  if (signal?.aborted) throw abortError(signal, what);
  const logStart = fileSize(spec.root, spec.logFile);
  let child: Awaited<ReturnType<typeof spawnErp>>;
  try {
    child = await spawnErp(program, [...prefix, ...leading, ...erpArgs(spec), ...args], spec, run.user, processConfigOptions(spec, { server: false }));
  } catch (error) {
    throw new ErpRunError(`${what}: cannot start: ${(error as Error).message}`, null, []);
  }
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolveExit) => child.once('exit', (code, killedBy) => resolveExit([code, killedBy])));
  const record = oneShotRecordOf(child.pid, command.join(' '), spec.database);
  if (record) writePidFile(run.pidFile, record);
  let stopping: Promise<unknown> | undefined;
  const stop = () => {
    stopping ??= terminateGroup(child.pid, run.graceMs).catch(() => false);
  };
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted) stop();
  const [code, killedBy] = await exited;
  signal?.removeEventListener('abort', stop);
  if (groupMembers(child.pid).length > 0) stop();
  await stopping;
  if (readOneShotFile(run.pidFile)?.pid === child.pid) removePidFile(run.pidFile);
  if (signal?.aborted) throw abortError(signal, what);
  if (code === 0) return;
  throw new ErpRunError(`${what} exited with ${code === null ? `signal ${killedBy}` : `code ${code}`}`, code, logTail(spec.root, spec.logFile, { from: logStart }));
}

/**
 * Ends what a one-shot run recorded in `pidFile` left running as `uid` (its executor died
 * mid-run, or the instance is being stopped under it) and removes the file. A pid now used by
 * another process is left alone. Rejects when even SIGKILL left something of the run.
 */
export async function endOneShotSurvivor(pidFile: string, uid: number, graceMs: number): Promise<void> {
  const record = readOneShotFile(pidFile);
  const group = record ? survivingGroup(record, uid) : null;
  if (group !== null && !(await terminateGroup(group, graceMs))) throw new Error(`the one-shot ERP run ${group} (${pidFile}) survived SIGKILL`);
  removePidFile(pidFile);
}
