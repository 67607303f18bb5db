import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { freePort } from '#shared/local/freePort.ts';
import { progress } from './progress.ts';

/** A process the benchmark started and must stop. */
export interface BenchChild {
  url: string;
  pid: number;
  /** Resident memory now (VmRSS), MB. */
  rssMb(): number;
  /** CPU time the process used so far (user + system), seconds. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const tsx = (script: string, args: string[] = []) => [process.execPath, ['--import', 'tsx', script, ...args]] as const;

/** The real lookup service (`npm run padron -- serve`) on a free port, rate limit off; resolves once /health answers. */
export async function startLookupService(databaseUrl: string): Promise<BenchChild> {
  const port = await freePort();
  const [command, args] = tsx('services/padron/cli.ts', ['serve']);
  const child = spawn(command, args, {
    env: { ...process.env, DATABASE_URL: databaseUrl, FORJA_PADRON_PORT: String(port), FORJA_PADRON_RATE_LIMIT: '0', LOG_LEVEL: 'warn', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the lookup service exited with code ${child.exitCode}`);
    const up = await fetch(`${url}/health`).then((response) => response.ok).catch(() => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error('the lookup service did not answer /health within 180 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return handle(child, url);
}

/** The constant-JSON node:http server answering `body` with `headers`. */
export async function startConstantServer(body: string, headers: Record<string, string>): Promise<BenchChild> {
  const [command, args] = tsx('scripts/bench/padron/constantServer.ts', [body, JSON.stringify(headers)]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return handle(child, `http://127.0.0.1:${chunk.toString().trim()}`);
}

function handle(child: ChildProcess, url: string): BenchChild {
  return {
    url,
    pid: child.pid ?? 0,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
    cpuSeconds: () => {
      // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name: utime, stime in clock ticks (100/s).
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      progress(`stopped ${url}`);
    },
  };
}
