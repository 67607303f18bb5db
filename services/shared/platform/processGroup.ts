import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';

/** How long an aborted tool or ERP run gets between SIGTERM and SIGKILL. */
export const ABORT_GRACE_MS = 3_000;

/** The fields of /proc/<pid>/stat after the command name (state first), or null when there is no such process. */
function statFields(pid: number): string[] | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name sits in parentheses and may hold spaces and parentheses itself.
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/**
 * When `pid` started, in clock ticks since boot, or null when it does not run (a zombie does not).
 * With the pid it names one process for as long as the machine is up: a reused pid starts later.
 */
export function processStartTime(pid: number): string | null {
  const fields = statFields(pid);
  return fields && fields[0] !== 'Z' ? (fields[19] ?? null) : null;
}

/** The (effective) user `pid` runs as, or null when there is no such process. */
export function processOwner(pid: number): number | null {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return null;
  }
}

/**
 * The processes of group `pgid` that still run. Zombies are dead: where PID 1 never reaps
 * orphans (some containers and microVMs), a killed grandchild stays one forever.
 */
export function groupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const fields = statFields(pid);
      return fields !== null && fields[0] !== 'Z' && Number(fields[2]) === pgid;
    });
}

/** Signals every process of group `pgid`; a group already gone is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  // kill(-1) would signal every process we may signal; kill(-0), our own group.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`not a process group to signal: ${pgid}`);
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Waits up to `timeoutMs` for the group to be gone; false when some of it still runs. */
export async function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupMembers(pgid).length > 0) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolveLater) => setTimeout(resolveLater, 50));
  }
  return true;
}

/** SIGTERM to the group, SIGKILL to what is left after `graceMs`; false when even that left something running. */
export async function terminateGroup(pgid: number, graceMs: number): Promise<boolean> {
  signalGroup(pgid, 'SIGTERM');
  if (await waitGroupGone(pgid, graceMs)) return true;
  signalGroup(pgid, 'SIGKILL');
  return waitGroupGone(pgid, 5_000);
}

/**
 * Stops the process group `child` leads (spawned `detached`) when `signal` fires: SIGTERM, then
 * SIGKILL after `graceMs` to whatever of the group still runs, even once `child` itself has exited
 * (a helper or worker it started may linger). `onStop` hears the abort first. Call `finish` once
 * `child` has closed: it unhooks the signal and, after an abort, resolves once nothing of the
 * group runs any more (a pipe's end can come before the last of a SIGKILLed group is gone).
 */
export function stopGroupOnAbort(child: ChildProcess, signal: AbortSignal | undefined, graceMs: number, onStop?: () => void): { finish: () => Promise<void>; stopped: () => boolean } {
  const pgid = child.pid;
  let stopped = false;
  let killTimer: NodeJS.Timeout | undefined;
  if (!signal || pgid === undefined) return { finish: async () => undefined, stopped: () => false };
  // Called from the signal's listener: a throw there would be an uncaught exception.
  const quietly = (sig: NodeJS.Signals) => {
    try {
      signalGroup(pgid, sig);
    } catch {
      // EPERM: not ours to signal any more.
    }
  };
  const stop = () => {
    stopped = true;
    onStop?.();
    quietly('SIGTERM');
    killTimer = setTimeout(() => quietly('SIGKILL'), graceMs);
  };
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  return {
    async finish() {
      signal.removeEventListener('abort', stop);
      if (!stopped) return;
      await waitGroupGone(pgid, graceMs + 5_000);
      clearTimeout(killTimer);
    },
    stopped: () => stopped,
  };
}
