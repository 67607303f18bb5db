import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { freePort } from '#shared/local/freePort.ts';
import { onTeardown } from './teardown.ts';

const REPO = resolve(import.meta.dirname, '../..');

/**
 * What a fresh clone of the repository holds, as this working tree has it (uncommitted edits
 * included, ignored files such as .data left out), copied into `dir`. node_modules is linked to
 * this checkout's, standing for the README's `npm install`.
 */
export function cloneWorkingTree(dir: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    try {
      copyFileSync(join(REPO, file), join(dir, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // deleted but not yet committed
    }
  }
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
}

/** The environment a new user has: no Forja setting and no service URL, only the ports moved to free ones. */
export async function userEnvironment(): Promise<{ env: NodeJS.ProcessEnv; ports: { controlPlane: number; web: number; padron: number; erpRouter: number } }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(FORJA_|DATABASE_URL$|EVENTSTORE_URL$|NATS_URL$|LOG_)/.test(name)) env[name] = value;
  }
  const ports = { controlPlane: await freePort(), web: await freePort(), padron: await freePort(), erpRouter: await freePort() };
  Object.assign(env, {
    FORJA_CONTROL_PLANE_PORT: String(ports.controlPlane),
    FORJA_WEB_PORT: String(ports.web),
    FORJA_PADRON_PORT: String(ports.padron),
    FORJA_ERP_ROUTER_PORT: String(ports.erpRouter),
    // Prometheus too (when installed): its default 9090 is a common port to find taken.
    FORJA_MONITORING_PORT: String(await freePort()),
  });
  return { env, ports };
}

/** `npm start` in `dir`, in a process group of its own, as a terminal would run it. */
export interface NpmStart {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** Resolves once the output matches `pattern`; rejects if the process ends or `timeoutMs` passes first. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Ctrl-C in a terminal: SIGINT to every process of the foreground group (npm, sh, tsx, node). */
  interrupt(): void;
}

export function npmStart(dir: string, env: NodeJS.ProcessEnv): NpmStart {
  const child = spawn('npm', ['start'], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  onTeardown(async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  return {
    child,
    output: () => text,
    exited,
    async waitForOutput(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = text.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start ended before printing ${pattern}:\n${text.slice(-3000)}`);
        if (Date.now() > deadline) throw new Error(`npm start did not print ${pattern} within ${timeoutMs} ms:\n${text.slice(-3000)}`);
        await new Promise((wake) => setTimeout(wake, 100));
      }
    },
    interrupt: () => process.kill(-child.pid!, 'SIGINT'),
  };
}

/** Processes whose command line names a path under `dir`: the clusters, nats-server and ERPs a platform there started. */
export function processesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (command.includes(dir)) found.push(`${pid}: ${command.slice(0, 200)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
