import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { startProjectorProcess } from '#projections/projectorProcess.ts';
import { startControlPlaneProcess } from '#services/control-plane/controlPlaneProcess.ts';
import { loadMigrationRecipes } from '#services/control-plane/migrations/migrationRecipes.ts';
import { migrationDatabasesOf } from '#services/control-plane/migrations/migrationSlug.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { migrationDir, runLogFile } from '#services/executor/migration/migrationHost.ts';
import { migrationDecider, type MigrationCommand } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream, type MigrationEvent, type MigrationSettings } from '#services/migrations/domain/migration.ts';
import { planDiff, reuseAfterAdopt } from '#services/migrations/domain/resync.ts';
import { loadConfig } from '#shared/config/config.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { silentLogger } from '#shared/log.ts';
import { openInfrastructure } from '#shared/platform/infrastructure.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import { settle } from './settle.ts';

/** What one run of a migration took, read from its events and its run log. */
export interface RunTimes {
  /** MigrationRunRequested → MigrationJobSucceeded, by the events' own clocks. */
  endToEndMs: number;
  /** Requested → the first step started: the relay and the queue. */
  queuedMs: number;
  /** durationMs of each step's MigrationStepCompleted. */
  steps: Map<string, number>;
  /** The checkpoint inside `restore`, from the run log's lines around it; NaN when the plan has no restore. */
  snapshotMs: number;
  /** Wall time from the end of `after` (or the first start) to the job's end, minus the steps' durations, per step. */
  overheadPerStepMs: (after?: string) => number;
}

/** How often the bench looks for the run's end: its figures come from the events' own times, so only the bench's own load depends on it. */
const POLL_MS = 500;
const at = (event: RecordedEvent) => Date.parse(event.metadata.at);

/**
 * The platform pieces of `scripts/bench/instances.ts`, in this process: projector (the relays),
 * control-plane and an executor on the process runtime whose ERP database server is the bench
 * cluster. Migrations are created and run through the domain, so a plan need not be a shipped
 * recipe: the relays queue the run for the executor as they would one the API asked for.
 */
export async function startMigrationPlatform(clusterUrl: (database: string) => string, platformDatabase: string, dataDir: string) {
  const config = {
    ...loadConfig({ DATABASE_URL: clusterUrl(platformDatabase), FORJA_DATA_DIR: dataDir, FORJA_PROJECTION_POLL_MS: '100', FORJA_PULL_ALLOW_HOSTS: '127.0.0.1', LOG_LEVEL: 'silent' }),
    FORJA_CONTROL_PLANE_PORT: 0,
  };
  const infra = await openInfrastructure(config, silentLogger);
  const running: ForjaProcess[] = [];
  for (const start of [startProjectorProcess, startControlPlaneProcess, executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: clusterUrl('postgres') })]) {
    running.push(await start(infra, config, silentLogger));
  }
  const recipe = await (await loadMigrationRecipes()).snapshotFor({ origin: '16.0', destination: '17.0' }, 'community');
  const admin = new pg.Client({ connectionString: clusterUrl('postgres') });
  await admin.connect();
  const { store } = infra;
  const send = (slug: string, command: MigrationCommand) =>
    handleCommand(store, migrationDecider, migrationStream(slug), command, { metadata: { correlationId: `bench-${slug}`, causationId: `bench-${slug}`, actor: 'system', at: new Date().toISOString(), via: 'bench' } });

  /** Creates migration `slug` pulling `pullUrl` and runs `plan` on it; resolves when the run succeeded. */
  async function run(slug: string, pullUrl: string, plan: readonly PlannedStep[]): Promise<RunTimes> {
    await create(slug, pullUrl);
    return timesOf(slug, 1, await requested(slug, plan));
  }

  /** Creates migration `slug` and runs `plan`, which must fail; resolves with the failed step's id once the run has failed. */
  async function runToFailure(slug: string, pullUrl: string, plan: readonly PlannedStep[]): Promise<string> {
    await create(slug, pullUrl);
    const events = await requested(slug, plan);
    const failed = events.find((event) => event.type === 'MigrationStepFailed');
    if (events.at(-1)!.type !== 'MigrationJobFailed' || !failed) throw new Error(`run of ${slug} was meant to fail, but ended ${events.at(-1)!.type}`);
    return (failed.data as { step: string }).step;
  }

  /**
   * What an operator does once the failing step is fixed in the recipe: the migration adopts the
   * fixed plan (a resync, reusing what the failed run finished before the changed step) and runs
   * again, which resumes from the last checkpoint. Resolves with the resumed run's times.
   */
  async function fixAndResume(slug: string, fixed: readonly PlannedStep[]): Promise<RunTimes> {
    const { state } = await aggregateStream(store, migrationDecider, migrationStream(slug));
    if (state.status === 'none') throw new Error(`no migration ${slug}`);
    const last = state.runs.at(-1);
    const recipe = { ...state.recipe, sha256: createHash('sha256').update(`${state.recipe.sha256} fixed`).digest('hex') };
    await send(slug, { type: 'ResyncMigration', decision: 'adopt', recipe, plan: fixed, reuse: reuseAfterAdopt(last, fixed), changes: planDiff(last?.job.plan ?? [], fixed) });
    return timesOf(slug, (last?.number ?? 0) + 1, await requested(slug, fixed));
  }

  async function create(slug: string, pullUrl: string): Promise<void> {
    const settings: MigrationSettings = {
      slug,
      name: slug,
      origin: '16.0',
      destination: '17.0',
      flavor: 'community',
      engine: 'openupgrade',
      purpose: 'test',
      contract: null,
      notifyTo: [],
      input: { mode: 'pull', pullUrl },
      recipe,
      ...migrationDatabasesOf(slug),
    };
    await send(slug, { type: 'CreateMigration', settings });
    await settle(admin);
  }

  /** Requests a run (a resume after a failed one) and waits for its end. */
  async function requested(slug: string, plan: readonly PlannedStep[]): Promise<RecordedEvent<MigrationEvent>[]> {
    const jobId = randomUUID();
    await send(slug, { type: 'RequestRun', jobId, plan });
    return untilEnded(slug, jobId);
  }

  async function timesOf(slug: string, number: number, events: RecordedEvent<MigrationEvent>[]): Promise<RunTimes> {
    const requested = events.find((event) => event.type === 'MigrationRunRequested')!;
    const ended = events.at(-1)!;
    if (ended.type !== 'MigrationJobSucceeded') throw new Error(`run of ${slug} ended ${ended.type}: ${JSON.stringify(events.filter((event) => event.type === 'MigrationStepFailed').map((event) => event.data))}`);
    const completed = events.filter((event) => event.type === 'MigrationStepCompleted');
    const stepOf = (event: RecordedEvent) => event.data as { step: string; durationMs: number };
    const steps = new Map(completed.map((event) => [stepOf(event).step, stepOf(event).durationMs]));
    const firstStart = events.find((event) => event.type === 'MigrationStepStarted')!;
    const overheadPerStepMs = (after?: string) => {
      const from = after ? completed.findIndex((event) => stepOf(event).step === after) : -1;
      const measured = completed.slice(from + 1);
      const wall = at(ended) - (from >= 0 ? at(completed[from]!) : at(firstStart));
      return (wall - measured.reduce((sum, event) => sum + stepOf(event).durationMs, 0)) / measured.length;
    };
    return {
      endToEndMs: at(ended) - at(requested),
      queuedMs: at(firstStart) - at(requested),
      steps,
      snapshotMs: steps.has('restore') ? await checkpointMs(runLogFile(dataDir, slug, number)) : Number.NaN,
      overheadPerStepMs,
    };
  }

  async function untilEnded(slug: string, jobId: string): Promise<RecordedEvent<MigrationEvent>[]> {
    const ends = new Set(['MigrationJobSucceeded', 'MigrationJobFailed', 'MigrationJobCancelled']);
    for (;;) {
      const { events } = await store.readStream<MigrationEvent>(migrationStream(slug));
      const mine = events.filter((event) => (event.data as { jobId?: string }).jobId === jobId);
      if (mine.some((event) => ends.has(event.type))) return mine;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Deletes the migration through the domain and waits until the executor has dropped its databases and removed its folder. */
  async function remove(slug: string): Promise<void> {
    await send(slug, { type: 'DeleteMigration', confirmName: slug });
    const databases = Object.values(migrationDatabasesOf(slug));
    const deadline = Date.now() + 300_000;
    while ((await admin.query('select 1 from pg_database where datname = any($1)', [databases])).rowCount || existsSync(migrationDir(dataDir, slug))) {
      if (Date.now() > deadline) throw new Error(`the executor did not remove ${databases.join(', ')} and the folder of ${slug} within 5 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function stop(): Promise<void> {
    await admin.end();
    for (const proc of running.reverse()) await proc.stop();
    await infra.close();
  }
  return { run, runToFailure, fixAndResume, remove, stop };
}

/** The checkpoint's time inside `restore`: from the line announcing it to the one reporting it taken (ms timestamps). */
async function checkpointMs(logFile: string): Promise<number> {
  const lines = (await readFile(logFile, 'utf8')).split('\n');
  const stamp = (pattern: RegExp) => {
    const line = lines.find((candidate) => pattern.test(candidate));
    if (!line) throw new Error(`no line matching ${pattern} in ${logFile}`);
    return Date.parse(line.slice(0, line.indexOf(' ')));
  };
  return stamp(/ forja: checkpoint \S+ taken in /) - stamp(/ forja: taking checkpoint: /);
}
