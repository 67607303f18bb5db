import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProjectorProcess } from '#projections/projectorProcess.ts';
import { readModelOf } from '#projections/readModel.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { startControlPlaneProcess } from '#services/control-plane/controlPlaneProcess.ts';
import { identityService } from '#services/control-plane/identity/identityService.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { instanceStream, type InstanceEvent } from '#services/instances/domain/instance.ts';
import { loadConfig } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import { openInfrastructure } from '#shared/platform/infrastructure.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import { createSecretBox } from '#shared/secrets/secretBox.ts';
import { migrateSecrets, passwordStore } from '#shared/secrets/secrets.ts';
import { withFreshCluster } from './benchCluster.ts';
import { int, median, table } from './table.ts';
import { progress } from './workload.ts';

/**
 * `npm run bench:instances`: 20 instances queued at once on the process runtime with the ERP
 * stand-in (time from create to running, executor overhead per step), and the API's create
 * latency (p50/p99) on a platform without an executor. Everything runs on a fresh private
 * PostgreSQL cluster in a temporary folder, removed afterwards.
 */
const QUEUED = Number(process.env['BENCH_INSTANCES'] ?? 20);
const CREATES = Number(process.env['BENCH_CREATES'] ?? 200);
const EMAIL = 'bench@forja.local';
const PASSWORD = 'bench password 1234';

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)] ?? NaN;

async function platform(clusterUrl: string, dataDir: string, withExecutor: boolean) {
  const config = { ...loadConfig({ DATABASE_URL: clusterUrl, FORJA_DATA_DIR: dataDir, FORJA_PROJECTION_POLL_MS: '100', LOG_LEVEL: 'silent' }), FORJA_CONTROL_PLANE_PORT: 0 };
  const infra = await openInfrastructure(config, silentLogger);
  const starters = [startProjectorProcess, startControlPlaneProcess, ...(withExecutor ? [executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: clusterUrl.replace(/\/[^/]*$/, '/postgres') })] : [])];
  const running: ForjaProcess[] = [];
  for (const start of starters) running.push(await start(infra, config, silentLogger));
  await migrateSecrets(infra.db);
  const identity = identityService({ store: infra.store, passwords: passwordStore(infra.db, createSecretBox(resolvePlatformSecrets(config).masterKey)), readModel: readModelOf(infra.db) });
  const at = new Date().toISOString();
  const registered = await identity.register({ email: EMAIL, role: 'developer', source: 'cli', password: PASSWORD }, { correlationId: 'bench', causationId: 'bench', actor: 'system', at });
  await waitForPosition(readModelOf(infra.db), 'users', registered.lastGlobalPosition ?? 0);
  const api = running.find((proc) => proc.name === 'control-plane')!.url!;
  const auth = `Basic ${Buffer.from(`${EMAIL}:${PASSWORD}`).toString('base64')}`;
  const create = async (name: string) => {
    const started = performance.now();
    const res = await fetch(`${api}/api/v1/instances`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ name, project: 'Bench', erp_version: '17.0', modules: ['sale'] }) });
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
    const { slug } = (await res.json()) as { slug: string };
    return { slug, ms: performance.now() - started };
  };
  const get = async (slug: string) => (await (await fetch(`${api}/api/v1/instances/${slug}`, { headers: { authorization: auth } })).json()) as { status: string; last_error: string | null };
  const stop = async () => {
    for (const proc of running.reverse()) await proc.stop();
    await infra.close();
  };
  return { infra, create, get, stop, auth, api };
}

async function apiCreateLatency(clusterUrl: string): Promise<number[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'forja-bench-api-'));
  const p = await platform(clusterUrl, dataDir, false);
  try {
    await p.create('warm-up');
    const latencies: number[] = [];
    for (let i = 0; i < CREATES; i++) latencies.push((await p.create(`api ${i}`)).ms);
    return latencies;
  } finally {
    await p.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function queuedAtOnce(clusterUrl: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'forja-bench-run-'));
  // The ERP runs as forja-erp when we are root: it must reach the instances' folders.
  chmodSync(dataDir, 0o755);
  const p = await platform(clusterUrl, dataDir, true);
  try {
    const started = performance.now();
    const created = await Promise.all(Array.from({ length: QUEUED }, (_, i) => p.create(`queued ${i}`)));
    const runningAfter = new Map<string, number>();
    while (runningAfter.size < created.length) {
      for (const { slug } of created) {
        if (runningAfter.has(slug)) continue;
        const instance = await p.get(slug);
        if (instance.status === 'running') runningAfter.set(slug, performance.now() - started);
        else if (instance.status === 'failed') throw new Error(`${slug} failed: ${instance.last_error ?? ''}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const overheads: number[] = [];
    const stepTimes = new Map<string, number[]>();
    for (const { slug } of created) {
      const { events } = await p.infra.store.readStream<InstanceEvent>(instanceStream(slug));
      const firstStart = events.find((event) => event.type === 'InstanceStepStarted');
      const done = events.find((event) => event.type === 'InstanceJobSucceeded');
      const steps = events.filter((event) => event.type === 'InstanceStepCompleted');
      const work = steps.reduce((sum, event) => sum + (event.data as { durationMs: number }).durationMs, 0);
      for (const event of steps) {
        const data = event.data as { step: string; durationMs: number };
        stepTimes.set(data.step, [...(stepTimes.get(data.step) ?? []), data.durationMs]);
      }
      const wall = Date.parse(done!.metadata.at) - Date.parse(firstStart!.metadata.at);
      overheads.push((wall - work) / steps.length);
    }
    for (const { slug } of created) await fetch(`${p.api}/api/v1/instances/${slug}/action`, { method: 'POST', headers: { authorization: p.auth, 'content-type': 'application/json' }, body: '{"action":"destroy"}' });
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && (await Promise.all(created.map(({ slug }) => p.get(slug)))).some((instance) => instance.status !== 'destroyed')) await new Promise((resolve) => setTimeout(resolve, 250));
    return { times: [...runningAfter.values()], overheads, stepTimes, createMs: created.map((entry) => entry.ms) };
  } finally {
    await p.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const dir = mkdtempSync(join(tmpdir(), 'forja-bench-instances-'));
// The cluster runs as the postgres user when we are root: it must reach its folder.
chmodSync(dir, 0o755);
await withFreshCluster(join(dir, 'cluster'), 'forja', async (cluster) => {
  progress(`API create latency: ${CREATES} creates, one after another, no executor`);
  const latencies = await apiCreateLatency(cluster.urlFor('forja'));
  progress(`${QUEUED} instances queued at once, process runtime, ERP stand-in`);
  const admin = new pg.Client({ connectionString: cluster.urlFor('postgres') });
  await admin.connect();
  await admin.query('create database forja_run');
  await admin.end();
  const run = await queuedAtOnce(cluster.urlFor('forja_run'));
  const lines = [
    '',
    `bench:instances — ${new Date().toISOString()}, ${QUEUED} instances (process runtime, ERP stand-in, ${process.env['FORJA_EXECUTOR_CONCURRENCY'] ?? 4} jobs at once)`,
    '',
    ...table(
      ['figure', 'p50', 'p99 / max', 'n'],
      [
        ['API create (ms), no executor', int(median(latencies)), int(percentile(latencies, 99)), String(latencies.length)],
        [`API create (ms), ${QUEUED} at once`, int(median(run.createMs)), int(Math.max(...run.createMs)), String(run.createMs.length)],
        ['create → running (ms)', int(median(run.times)), int(Math.max(...run.times)), String(run.times.length)],
        ['executor overhead per step (ms)', int(median(run.overheads)), int(Math.max(...run.overheads)), String(run.overheads.length)],
        ...[...run.stepTimes].map(([step, times]) => [`  step ${step} (ms)`, int(median(times)), int(Math.max(...times)), String(times.length)]),
      ],
      'lrrr',
    ),
    '',
    `all ${QUEUED} running after ${int(Math.max(...run.times))} ms`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});
rmSync(dir, { recursive: true, force: true });
