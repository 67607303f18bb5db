import { spawn } from 'node:child_process';
import type { Logger } from '../log.ts';
import { signalGroup, terminateGroup } from '../platform/processGroup.ts';

const STOP_GRACE_MS = 5_000;
const POLL_MS = 100;

export interface ChildToolOptions {
  /** For logs and errors: `Prometheus`. */
  label: string;
  command: string;
  args: string[];
  /** The child's whole environment: nothing of Forja's (secrets included) leaks into it unasked. */
  env: Record<string, string>;
  cwd?: string;
  /** Resolves true once the tool serves. */
  ready: () => Promise<boolean>;
  readyTimeoutMs: number;
  logger: Logger;
  /** Run as this user and group (set as root). */
  uid?: number;
  gid?: number;
  /**
   * Run in a process group of its own, signalled whole: for a tool whose workers are its children
   * and would outlive it (PHP's built-in server). Without it only the tool itself is signalled.
   */
  processGroup?: boolean;
}

export interface ChildTool {
  running(): boolean;
  stop(): Promise<void>;
}

/**
 * A tool binary run as a child of Forja until Forja stops (the mail catcher, the database admin,
 * Prometheus and its exporter): started, waited for until `ready`, its last output kept for the
 * error when it fails, SIGTERM then SIGKILL on stop.
 */
export async function startChildTool(options: ChildToolOptions): Promise<ChildTool> {
  const account = options.uid !== undefined && options.gid !== undefined ? { uid: options.uid, gid: options.gid } : {};
  const child = spawn(options.command, options.args, {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.processGroup ? { detached: true } : {}),
    ...account,
  });
  const group = options.processGroup && child.pid ? child.pid : undefined;
  let output = '';
  const keep = (chunk: Buffer) => {
    output = `${output}${chunk.toString()}`.slice(-2000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let running = true;
  let stopping = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      keep(Buffer.from(error.message));
      resolve(null);
    });
    child.once('exit', (code) => resolve(code));
  });
  void exited.then((code) => {
    running = false;
    if (!stopping) options.logger.error({ code, output }, `${options.label} stopped on its own`);
  });
  const deadline = Date.now() + options.readyTimeoutMs;
  while (!(await options.ready().catch(() => false))) {
    if (!running || Date.now() > deadline) {
      stopping = true;
      if (group) signalGroup(group, 'SIGKILL');
      else child.kill('SIGKILL');
      throw new Error(`${options.label} did not start within ${options.readyTimeoutMs / 1000} s: ${output.trim() || 'no output'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return {
    running: () => running,
    async stop() {
      stopping = true;
      if (group) {
        // Even when the tool itself is gone: a worker of its group may still run.
        await terminateGroup(group, STOP_GRACE_MS);
        if (running) await exited;
        return;
      }
      if (!running) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Whether GET `url` (with `headers`: a tool's login) answers 200 within a second. */
export async function answers200(url: string, headers: Record<string, string> = {}): Promise<boolean> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
  await response?.body?.cancel();
  return response?.status === 200;
}
