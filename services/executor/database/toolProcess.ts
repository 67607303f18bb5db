import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { abortError } from '../abortError.ts';
import { ABORT_GRACE_MS, stopGroupOnAbort } from '#shared/platform/processGroup.ts';
import { FAILURE_LINE, failureMessageLines } from './errorFirst.ts';
import { logLine } from './logLine.ts';

/** How many of a tool's last stderr lines an error carries. */
const TAIL_LINES = 12;
/** How many of a tool's first ERROR/FATAL lines an error carries, even when later lines pushed them out of the tail. */
const FAILURE_LINES = 3;

/** A command-line tool (pg_dump, pg_restore, psql, bsdtar) that failed; the message holds its last stderr lines. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    message: string,
    readonly tool: string,
    readonly exitCode: number | null,
    readonly stderrTail: string[],
  ) {
    super(message);
  }
}

export interface ToolExit {
  tool: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string[];
  /** The first ERROR, FATAL or PANIC lines the tool wrote, wherever they were. */
  failureLines: string[];
  /** Set when the tool could not be started at all (not installed, not executable). */
  spawnError?: Error;
  /** Set when `signal` stopped the tool: what the operation rejects with (see abortError). */
  aborted?: Error;
}

export interface ToolOptions {
  env?: NodeJS.ProcessEnv;
  log: Writable;
  /** `pipe` to feed the tool's stdin, `ignore` otherwise. */
  stdin?: 'pipe' | 'ignore';
  /** `pipe` to read the tool's stdout (a dump), `ignore` otherwise, or a descriptor (a file Forja opened) to write it to. */
  stdout?: 'pipe' | 'ignore' | number;
  /** Runs the tool as this account (a tenant's, reading its own folder), not as Forja. */
  as?: { uid: number; gid: number } | null;
  /** Sees every stderr line, for callers that judge more than the last few. */
  onStderrLine?: (line: string) => void;
  /** The job's signal: when it fires the tool's process group gets SIGTERM, then SIGKILL after `killGraceMs`. */
  signal?: AbortSignal;
  /** Default 3 s. */
  killGraceMs?: number;
}

/**
 * Starts a tool without a shell (arguments are never parsed by one), copying each stderr line to
 * the log. `exit` never rejects: it settles once the process and its stderr are done. The tool
 * leads a process group of its own, so an abort stops whatever it started too.
 */
export function startTool(command: string, args: string[], options: ToolOptions): { child: ChildProcess; exit: Promise<ToolExit> } {
  const child = spawn(command, args, { env: options.env ?? process.env, detached: true, stdio: [options.stdin ?? 'ignore', options.stdout ?? 'ignore', 'pipe'], ...(options.as ?? {}) });
  const graceMs = options.killGraceMs ?? ABORT_GRACE_MS;
  const abort = stopGroupOnAbort(child, options.signal, graceMs, () =>
    logLine(options.log, `${command}: aborted, stopping it (SIGTERM, SIGKILL after ${graceMs} ms)`),
  );
  const tail: string[] = [];
  const failures: string[] = [];
  let spawnError: Error | undefined;
  child.on('error', (error) => {
    spawnError = error;
  });
  const lines = createInterface({ input: child.stderr!, crlfDelay: Infinity });
  lines.on('line', (line) => {
    // pg tools name themselves at the start of their messages; bsdtar does too.
    logLine(options.log, line.startsWith(`${command}:`) ? line : `${command}: ${line}`);
    options.onStderrLine?.(line);
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
    if (failures.length < FAILURE_LINES && FAILURE_LINE.test(line)) failures.push(line);
  });
  const exit = Promise.all([once(lines, 'close'), closed(child)]).then(async ([, [code, signal]]) => {
    await abort.finish();
    return {
      tool: command,
      code,
      signal,
      stderrTail: tail,
      failureLines: failures,
      ...(spawnError ? { spawnError } : {}),
      ...(abort.stopped() && options.signal ? { aborted: abortError(options.signal, command) } : {}),
    };
  });
  return { child, exit };
}

function closed(child: ChildProcess): Promise<[number | null, NodeJS.Signals | null]> {
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve([code, signal]));
    // 'close' does not follow a failed spawn on every Node version.
    child.on('error', () => setImmediate(() => resolve([child.exitCode, child.signalCode])));
  });
}

/** Runs a tool to its end; rejects with a ToolError unless it exits 0, or with the abort's reason (see abortError) when `signal` stopped it. */
export async function runTool(command: string, args: string[], options: ToolOptions & { what: string }): Promise<void> {
  const { exit } = startTool(command, args, options);
  const result = await exit;
  if (result.aborted) throw result.aborted;
  if (!succeeded(result)) throw toolError(options.what, result);
}

export function succeeded(result: ToolExit): boolean {
  return result.code === 0 && result.spawnError === undefined && result.aborted === undefined;
}

/** `<what>: <tool> exited with 1: <last stderr lines, ERROR and FATAL ones first>`, or why it could not start; the log has every line as written. */
export function toolError(what: string, result: ToolExit): ToolError {
  const how = result.spawnError
    ? `${result.tool} could not be started (${result.spawnError.message}; is it installed?)`
    : `${result.tool} ${result.signal ? `was killed by ${result.signal}` : `exited with ${result.code}`}`;
  const tail = result.stderrTail.length > 0 ? `: ${failureMessageLines(result.failureLines, result.stderrTail).join(' | ')}` : result.spawnError ? '' : ' and wrote no message';
  return new ToolError(`${what}: ${how}${tail}`, result.tool, result.code, result.stderrTail);
}
