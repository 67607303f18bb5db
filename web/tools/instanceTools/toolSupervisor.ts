import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileBeneath } from '#shared/fs/beneath.ts';
import type { SystemUser } from '#shared/local/systemUser.ts';
import type { Logger } from '#shared/log.ts';
import type { InstanceToolSpec } from './instanceToolSpec.ts';
import { openToolLog, prepareLaunch } from './toolLaunch.ts';
import { closeToolSocket, launchTarget, waitUntilReady } from './toolSocket.ts';
import type { ProxyTarget } from '../toolProxy.ts';

/** A started tool: where the proxy sends its requests and the secret it adds to them. */
export interface RunningTool {
  target: ProxyTarget;
  token: string;
  pid: number;
}

export interface SupervisorOptions {
  /** FORJA_DATA_DIR: instance folders are `instances/<slug>` below it. */
  dataDir: string;
  /** A tool with no request for this long is stopped (FORJA_TOOL_IDLE). */
  idleMs: number;
  logger: Logger;
  /** The account an instance's tools run as: the instance's own when web runs as root, else null (web's own, unprivileged). */
  account: (slug: string) => SystemUser | null;
  readyTimeoutMs?: number;
  /** How long a stopping tool has after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
  /**
   * Whether the instance is still there (not destroyed, not purged): a destroyed instance's tools
   * are stopped at the next sweep, not left to their idle time, since its folder is being removed.
   */
  instanceExists?: (slug: string) => Promise<boolean>;
  /** How often that is asked of the instances whose tools run (60 s). */
  sweepMs?: number;
}

interface Entry {
  starting: Promise<RunningTool>;
  child?: ChildProcess;
  lastUsed: number;
  idleTimer?: NodeJS.Timeout;
}

/** Only what a tool needs from web's environment: never Forja's secrets (FORJA_MASTER_KEY, database URLs). */
function baseEnvironment(): Record<string, string> {
  const kept: Record<string, string> = { PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin', LANG: process.env['LANG'] ?? 'C.UTF-8' };
  if (process.env['TZ']) kept['TZ'] = process.env['TZ'];
  return kept;
}

/**
 * Starts each instance's tools on first use and stops them when idle: one process per instance and
 * kind; concurrent first requests share one start; a tool that died is started again at the next
 * request; `stopAll` ends every one (web's stop). Each runs in its own process group, so its
 * children (a notebook's kernels) end with it.
 */
export function toolSupervisor(options: SupervisorOptions) {
  const entries = new Map<string, Entry>();
  let stopped = false;
  const graceMs = options.stopGraceMs ?? 5000;
  const keyOf = (spec: InstanceToolSpec, slug: string) => `${slug}/${spec.kind}`;
  const slugOfKey = (key: string) => key.slice(0, key.indexOf('/'));

  /** Stops every tool of one instance (a destroyed one's). */
  async function stopInstance(slug: string): Promise<void> {
    const mine = [...entries].filter(([key]) => slugOfKey(key) === slug);
    await Promise.all(
      mine.map(async ([key, entry]) => {
        entries.delete(key);
        clearTimeout(entry.idleTimer);
        options.logger.info({ tool: key }, "stopping a tool of an instance that is gone");
        await entry.starting.catch(() => undefined);
        if (entry.child) await stopChild(entry.child);
      }),
    );
  }

  const sweep = options.instanceExists
    ? setInterval(() => {
        for (const slug of new Set([...entries.keys()].map(slugOfKey))) {
          options.instanceExists!(slug).then(
            (exists) => (exists ? undefined : stopInstance(slug)),
            (error: unknown) => options.logger.warn({ err: error, slug }, 'could not tell whether an instance with tools still exists'),
          );
        }
      }, options.sweepMs ?? 60_000)
    : undefined;
  sweep?.unref();

  async function start(spec: InstanceToolSpec, slug: string, entry: Entry, key: string): Promise<RunningTool> {
    const account = options.account(slug);
    const launch = await prepareLaunch(spec, options.dataDir, slug, account);
    spec.prepare?.(launch);
    const command = spec.command(launch);
    const log = openToolLog(launch);
    let child: ChildProcess;
    try {
      child = spawn(command.file, command.args, {
        cwd: launch.workDir,
        env: { ...baseEnvironment(), ...command.env },
        stdio: ['ignore', log, log],
        detached: true,
        ...(account ? { uid: account.uid, gid: account.gid } : {}),
      });
    } finally {
      closeSync(log);
    }
    entry.child = child;
    // Root's file in the tenant's folder: written beside and renamed over, never through a link there.
    if (child.pid) writeFileBeneath(launch.folder.base, `${launch.folder.relative}/tool.pid`, `${child.pid}\n`, { mode: 0o600 });
    let exited = false;
    child.on('error', (error) => {
      exited = true;
      options.logger.error({ err: error, slug, tool: spec.kind }, 'tool could not start');
    });
    child.on('exit', (code, signal) => {
      exited = true;
      closeToolSocket(launch);
      if (entries.get(key) === entry) {
        entries.delete(key);
        clearTimeout(entry.idleTimer);
        options.logger.info({ slug, tool: spec.kind, code, signal }, 'tool stopped');
      }
    });
    try {
      await waitUntilReady(spec, launch, () => exited, options.readyTimeoutMs ?? 60_000);
    } catch (error) {
      void stopChild(child);
      throw new Error(`${(error as Error).message} (see ${join(launch.workDir, 'tool.log')})`, { cause: error });
    }
    options.logger.info({ slug, tool: spec.kind, pid: child.pid, user: account?.name ?? 'web' }, 'tool started');
    return { target: launchTarget(spec, launch), token: launch.token, pid: child.pid! };
  }

  /** SIGTERM to the tool's group, SIGKILL after the grace period; resolves once it has exited. */
  function stopChild(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) return Promise.resolve();
    const pid = child.pid;
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // Gone already.
      }
    };
    return new Promise((resolve) => {
      const kill = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      // A SIGKILLed group is gone within moments; web's stop must not wait on an exit it missed.
      const giveUp = setTimeout(() => resolve(), graceMs + 5000);
      child.once('exit', () => {
        clearTimeout(kill);
        clearTimeout(giveUp);
        // Whatever the tool left behind in its group (a kernel that ignored SIGTERM) ends too.
        signalGroup('SIGKILL');
        resolve();
      });
      signalGroup('SIGTERM');
    });
  }

  function scheduleIdleStop(key: string, entry: Entry): void {
    clearTimeout(entry.idleTimer);
    const left = entry.lastUsed + options.idleMs - Date.now();
    entry.idleTimer = setTimeout(() => {
      if (entries.get(key) !== entry) return;
      if (Date.now() - entry.lastUsed < options.idleMs) return scheduleIdleStop(key, entry);
      options.logger.info({ tool: key }, 'stopping an idle tool');
      entries.delete(key);
      if (entry.child) void stopChild(entry.child);
    }, Math.max(left, 0));
    entry.idleTimer.unref();
  }

  return {
    /** The running tool, started (once, however many ask at the same time) when it is not. Counts as use. */
    use(spec: InstanceToolSpec, slug: string): Promise<RunningTool> {
      if (stopped) return Promise.reject(new Error('web is stopping: no tool starts now'));
      const key = keyOf(spec, slug);
      const found = entries.get(key);
      if (found) {
        found.lastUsed = Date.now();
        return found.starting;
      }
      const entry: Entry = { starting: Promise.resolve() as unknown as Promise<RunningTool>, lastUsed: Date.now() };
      entries.set(key, entry);
      entry.starting = start(spec, slug, entry, key).then(
        (running) => {
          scheduleIdleStop(key, entry);
          return running;
        },
        (error: unknown) => {
          if (entries.get(key) === entry) entries.delete(key);
          throw error;
        },
      );
      return entry.starting;
    },
    /** Marks the tool used now (a WebSocket's traffic): the idle time starts again. */
    touch(spec: InstanceToolSpec, slug: string): void {
      const entry = entries.get(keyOf(spec, slug));
      if (entry) entry.lastUsed = Date.now();
    },
    /** The keys (`slug/kind`) of the tools started or starting. */
    running: (): string[] => [...entries.keys()],
    stopInstance,
    /** Stops every tool and waits for them to exit. */
    async stopAll(): Promise<void> {
      stopped = true;
      clearInterval(sweep);
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(
        all.map(async (entry) => {
          clearTimeout(entry.idleTimer);
          await entry.starting.catch(() => undefined);
          if (entry.child) await stopChild(entry.child);
        }),
      );
    },
  };
}

export type ToolSupervisor = ReturnType<typeof toolSupervisor>;
