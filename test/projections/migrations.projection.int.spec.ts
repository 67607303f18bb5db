import { expect } from 'chai';
import { erpMigrationsProjection } from '#projections/erpMigrations/erpMigrations.ts';
import { getMigration, listMigrations, migrationActionViewOf, withoutUserinfo, type MigrationDetailRow } from '#projections/erpMigrations/migrationDetail.ts';
import { offeredMigrationActions } from '#services/migrations/domain/migrationActions.ts';
import { getRun, runsOf, runSteps, type MigrationRunRow, type MigrationRunStepRow } from '#projections/erpMigrations/migrationRuns.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { migrationDecider, type MigrationCommand } from '#services/migrations/domain/migration.decider.ts';
import { checkpointOf, evolveMigration, failedInPreflight, initialMigrationState, migrationStream, type MigrationEvent, type MigrationSettings, type MigrationState } from '#services/migrations/domain/migration.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { planStep } from '#shared/workflow/plan.ts';
import { event, projectionSpec, recordedEvents, type EventDraft } from '#test/support/projectionSpec.ts';

const PLAN = [
  planStep('disk_space', { params: { phase: 'preflight', title: 'Free disk space' } }),
  planStep('fetch', { params: { title: 'Download the dump' }, timeoutS: 3600, retries: { count: 2 } }),
  planStep('restore'),
  { id: 'approve', type: 'gate', params: { title: 'Approve the restored data' } },
  planStep('upgrade', { timeoutS: 7200 }),
  planStep('verify'),
];

const fold = (drafts: readonly EventDraft[]): MigrationState => drafts.reduce((state, draft) => evolveMigration(state, draft as MigrationEvent), initialMigrationState());

/**
 * One migration's stream as the platform writes it: `tell` decides the commands with the real
 * decider on the state `before` leaves, and returns the events (checked against their schemas) as
 * drafts; a step's result carries its running attempt's id, as the executor's does.
 */
function migrationStory(overrides: Partial<MigrationSettings> = {}) {
  const settings: MigrationSettings = {
    slug: 'acme-17',
    name: 'Acme to 17',
    origin: '16.0',
    destination: '17.0',
    flavor: 'community',
    engine: 'upgrade-service',
    purpose: 'test',
    contract: 'M-2024-778812',
    notifyTo: ['ops@example.com'],
    input: { mode: 'pull', pullUrl: 'https://ana:s3cret@files.example.com/acme.dump?day=1' },
    recipe: { key: 'community.16.0-17.0', sha256: 'a'.repeat(64), text: 'format: 1' },
    workingDatabase: 'forja_mig_acme_17',
    ...overrides,
  };
  const stream = migrationStream(settings.slug);
  const attemptOf = (state: MigrationState, step: string) => {
    const current = state.status === 'none' ? undefined : state.runs.at(-1)?.job.steps[step];
    return current && 'attemptId' in current ? current.attemptId : undefined;
  };
  const story = {
    tell(commands: MigrationCommand[], before: readonly EventDraft[] = []): EventDraft[] {
      let state = fold(before.filter((draft) => draft.stream === stream));
      return commands.flatMap((command) => {
        const told = 'step' in command && command.type !== 'StartStep' && !('attemptId' in command) ? { ...command, attemptId: attemptOf(state, command.step) } : command;
        const actor = 'jobId' in command && command.type !== 'RequestRun' && command.type !== 'RunAnyway' ? 'system' : 'user-ana';
        return migrationDecider.decide(told as MigrationCommand, state).map((domainEvent) => {
          const validate = schemaValidator(`events/${domainEvent.type}.v1.json`);
          if (!validate(domainEvent.data)) throw new Error(`${domainEvent.type} does not match its schema: ${describeErrors(validate)}`);
          state = evolveMigration(state, domainEvent);
          return event(domainEvent, { stream, metadata: { actor } });
        });
      });
    },
    create: (): MigrationCommand => ({ type: 'CreateMigration', settings }),
    run: (jobId: string): MigrationCommand => ({ type: 'RequestRun', jobId, plan: PLAN }),
    start: (jobId: string, step: string, attempt = 1): MigrationCommand => ({ type: 'StartStep', jobId, step, attemptId: `${jobId}-${step}-${attempt}`, executor: 'executor-1' }),
    complete: (jobId: string, step: string, facts: object = {}, durationMs = 1200) => ({ type: 'CompleteStep', jobId, step, durationMs, facts }) as MigrationCommand,
    fail: (jobId: string, step: string, error: string, retryable = false) => ({ type: 'FailStep', jobId, step, durationMs: 800, error, retryable, logTail: [error] }) as MigrationCommand,
    timeout: (jobId: string, step: string, durationMs: number) => ({ type: 'InterruptStep', jobId, step, reason: 'timeout', durationMs }) as MigrationCommand,
    gate: (jobId: string, step: string, message: string) => ({ type: 'ReachGate', jobId, step, message }) as MigrationCommand,
    ran: (jobId: string, steps: string[]): MigrationCommand[] => steps.flatMap((step) => [story.start(jobId, step), story.complete(jobId, step)]),
    /** Every kind of event: a failed pre-flight, run-anyway, a retry, a gate paused at, a timeout, a resume, a pause, success, an edit, a stop, a new run and a delete. */
    fullHistory(): EventDraft[] {
      return story.tell([
        story.create(),
        { type: 'EditMigration', changes: { contract: 'M-2025-000042', notifyTo: ['ops@example.com', 'cfo@example.com'] } },
        story.run('r1'),
        story.start('r1', 'disk_space'),
        story.fail('r1', 'disk_space', 'only 2 GB free'),
        { type: 'RunAnyway', jobId: 'r2', reason: 'the check counts a volume we do not use' },
        story.start('r2', 'fetch'),
        story.fail('r2', 'fetch', 'connection reset', true),
        story.start('r2', 'fetch', 2),
        story.complete('r2', 'fetch', { sha256: 'f'.repeat(64), warnings: ['the dump has no filestore'] }),
        ...story.ran('r2', ['restore']),
        story.start('r2', 'approve'),
        story.gate('r2', 'approve', 'Do the totals match?'),
        { type: 'PauseRun' },
        { type: 'ResumeRun' },
        { type: 'ResolveRunGate', number: 2, decision: 'approved', by: 'ana@example.com' },
        story.start('r2', 'upgrade'),
        story.timeout('r2', 'upgrade', 7_200_000),
        story.run('r3'),
        story.start('r3', 'upgrade'),
        { type: 'PauseRun' },
        { type: 'ResumeRun' },
        story.start('r3', 'upgrade', 2),
        story.complete('r3', 'upgrade'),
        ...story.ran('r3', ['verify']),
        { type: 'EditMigration', changes: { contract: 'M-2025-000099', purpose: 'production' } },
        { type: 'StopMigration' },
        story.run('r4'),
        story.start('r4', 'disk_space'),
        { type: 'DeleteMigration', confirmName: settings.name },
      ]);
    },
  };
  return story;
}

/** When the spec records `draft` among `drafts`. */
const at = (drafts: readonly EventDraft[], draft: EventDraft | undefined) => new Date(recordedEvents([...drafts])[drafts.indexOf(draft!)]!.metadata.at);
/** The columns a scenario looks at, from the migration's row. */
const detailOf =
  <K extends keyof MigrationDetailRow>(slug: string, ...columns: K[]) =>
  async (db: ReadModel): Promise<Pick<MigrationDetailRow, K> | undefined> => {
    const row = await getMigration(db, slug);
    return row && (Object.fromEntries(columns.map((column) => [column, row[column]])) as Pick<MigrationDetailRow, K>);
  };
/** Each step of the run as `step status`, in plan order. */
const statesOf = (jobId: string) => async (db: ReadModel) => (await runSteps(db, jobId)).map((row) => `${row.step_id} ${row.status}`);
const stepOf = (jobId: string, step: string) => async (db: ReadModel) => (await runSteps(db, jobId)).find((row) => row.step_id === step);
const runOf = (number: number) => (db: ReadModel) => getRun(db, 'acme-17', number);

describe('migration read models (migration_detail, migration_runs, migration_run_steps)', () => {
  const spec = projectionSpec(erpMigrationsProjection);
  const acme = migrationStory();
  const created = acme.tell([acme.create()]);
  /** The events of `commands` after `history`, appended to it. */
  const after = (history: EventDraft[], commands: MigrationCommand[]) => [...history, ...acme.tell(commands, history)];
  const requested = after(created, [acme.run('r1')]);
  const status = detailOf('acme-17', 'status', 'last_run_number', 'last_run_status', 'preflight_failed');

  describe('migration_detail', () => {
    it('shows a created migration as a draft, its pull URL without credentials and its contract only as a hint', async () => {
      const when = at(created, created[0]);
      const expected: MigrationDetailRow = {
        slug: 'acme-17',
        name: 'Acme to 17',
        origin: '16.0',
        destination: '17.0',
        flavor: 'community',
        engine: 'upgrade-service',
        purpose: 'test',
        contract_hint: '…8812',
        notify_to: ['ops@example.com'],
        status: 'draft',
        recipe_key: 'community.16.0-17.0',
        recipe_sha256: 'a'.repeat(64),
        working_database: 'forja_mig_acme_17',
        input: { mode: 'pull', pull_url: 'https://files.example.com/acme.dump?day=1', dump_name: null, filestore_name: null, bytes: null, sha256: null },
        last_run_number: null,
        last_run_status: null,
        preflight_failed: false,
        project: null,
        code: {},
        migrated_recipe_sha256: null,
        created_by: 'user-ana',
        created_at: when,
        updated_at: when,
      };
      await spec.when(created).then((db) => getMigration(db, 'acme-17'), expected);
      await spec.when(acme.fullHistory().slice(0, -3)).then(async (db) => JSON.stringify(await getMigration(db, 'acme-17')).match(/s3cret|ana:|M-2025-000099|M-2024/g), null);
    });

    it('shows an upload without its upload id, and a migration without input yet', async () => {
      const upload = migrationStory({ input: { mode: 'upload', uploadId: 'up-1', dumpName: 'acme.dump', filestoreName: null, bytes: 123_456, sha256: 'b'.repeat(64) }, contract: null });
      await spec.when(upload.tell([upload.create()])).then(detailOf('acme-17', 'input', 'contract_hint'), {
        input: { mode: 'upload', pull_url: null, dump_name: 'acme.dump', filestore_name: null, bytes: 123_456, sha256: 'b'.repeat(64) },
        contract_hint: null,
      });
      const none = migrationStory({ input: { mode: 'none' } });
      await spec.when(none.tell([none.create()])).then(detailOf('acme-17', 'input'), { input: { mode: 'none', pull_url: null, dump_name: null, filestore_name: null, bytes: null, sha256: null } });
    });

    it('removes only the user and password from a URL', () => {
      expect(withoutUserinfo('https://user:pw@host')).to.equal('https://host');
      expect(withoutUserinfo('https://us@er:p@ss@files.example.com/a@b?x=@')).to.equal('https://files.example.com/a@b?x=@');
      expect(withoutUserinfo('https://files.example.com/acme.dump')).to.equal('https://files.example.com/acme.dump');
      expect(withoutUserinfo('https://ana:pw@exa mple.com/x')).to.equal('https://exa mple.com/x');
    });

    it('applies an edit: route and recipe in a draft, the contract as a hint', async () => {
      const recipe = { key: 'community.15.0-17.0', sha256: 'c'.repeat(64), text: 'format: 1' };
      const edited = acme.tell([{ type: 'EditMigration', changes: { origin: '15.0', recipe, contract: 'XYZ', notifyTo: [] } }], created);
      await spec.given(created).when(edited).then(detailOf('acme-17', 'origin', 'recipe_key', 'recipe_sha256', 'contract_hint', 'notify_to', 'updated_at'), {
        origin: '15.0',
        recipe_key: 'community.15.0-17.0',
        recipe_sha256: 'c'.repeat(64),
        contract_hint: '…',
        notify_to: [],
        updated_at: at([...created, ...edited], edited[0]),
      });
      const cleared = acme.tell([{ type: 'EditMigration', changes: { contract: null } }], created);
      await spec.given(created).when(cleared).then(detailOf('acme-17', 'contract_hint'), { contract_hint: null });
    });

    it('follows its last run: queued, running, errored; a pre-flight failure offers run-anyway', async () => {
      await spec.given(created).when(requested.slice(1)).then(status, { status: 'queued', last_run_number: 1, last_run_status: 'queued', preflight_failed: false });
      const running = after(requested, [acme.start('r1', 'disk_space')]);
      await spec.given(requested).when(running.slice(requested.length)).then(status, { status: 'running', last_run_number: 1, last_run_status: 'running', preflight_failed: false });
      const preflightFailed = after(running, [acme.fail('r1', 'disk_space', 'only 2 GB free')]);
      await spec.given(running).when(preflightFailed.slice(running.length)).then(status, { status: 'errored', last_run_number: 1, last_run_status: 'failed', preflight_failed: true });
      const anyway = after(preflightFailed, [{ type: 'RunAnyway', jobId: 'r2', reason: 'not our volume' }]);
      await spec.given(preflightFailed).when(anyway.slice(preflightFailed.length)).then(status, { status: 'queued', last_run_number: 2, last_run_status: 'queued', preflight_failed: false });
      const mainFailed = after(requested, [...acme.ran('r1', ['disk_space']), acme.start('r1', 'fetch'), acme.fail('r1', 'fetch', 'HTTP 404')]);
      await spec.given(requested).when(mainFailed.slice(requested.length)).then(status, { status: 'errored', last_run_number: 1, last_run_status: 'failed', preflight_failed: false });
    });

    it('pauses and resumes; waits at a gate, paused or not, until it is resolved', async () => {
      const running = after(requested, [acme.start('r1', 'disk_space')]);
      const paused = after(running, [{ type: 'PauseRun' }]);
      await spec.given(running).when(paused.slice(running.length)).then(detailOf('acme-17', 'status'), { status: 'paused' });
      await spec.given(paused).when(acme.tell([{ type: 'ResumeRun' }], paused)).then(detailOf('acme-17', 'status'), { status: 'queued' });
      const atGate = after(requested, [...acme.ran('r1', ['disk_space', 'fetch', 'restore']), acme.start('r1', 'approve'), acme.gate('r1', 'approve', 'Do the totals match?')]);
      await spec.given(requested).when(atGate.slice(requested.length)).then(detailOf('acme-17', 'status'), { status: 'waiting' });
      const pausedAtGate = after(atGate, [{ type: 'PauseRun' }, { type: 'ResumeRun' }]);
      await spec.given(atGate).when(pausedAtGate.slice(atGate.length)).then(detailOf('acme-17', 'status'), { status: 'waiting' });
      const resolved = acme.tell([{ type: 'ResolveRunGate', number: 1, decision: 'approved', by: 'ana@example.com' }], pausedAtGate);
      await spec.given(pausedAtGate).when(resolved).then(detailOf('acme-17', 'status'), { status: 'running' });
    });

    it('remembers the recipe a migrated migration ran with: no run again until a resync changes it', async () => {
      const full = acme.fullHistory();
      const migrated = full.slice(0, full.findIndex((event) => event.type === 'MigrationEdited' && event !== full[1]));
      const view = async (db: ReadModel) => {
        const row = (await getMigration(db, 'acme-17'))!;
        return [row.status, row.migrated_recipe_sha256, offeredMigrationActions(migrationActionViewOf(row))];
      };
      await spec.when(migrated).then(view, ['migrated', 'a'.repeat(64), ['stop', 'delete']]);
      const recipe = { key: 'community.16.0-17.0', sha256: 'b'.repeat(64), text: 'format: 1\n' };
      const resynced = acme.tell([{ type: 'ResyncMigration', decision: 'adopt', recipe, plan: PLAN, reuse: { reuse: [], checkpoint: null, restoreAgain: false }, changes: [] }], migrated);
      await spec.given(migrated).when(resynced).then(view, ['migrated', 'a'.repeat(64), ['run', 'stop', 'delete']]);
    });

    it('goes back to a draft on stop, and is gone on delete', async () => {
      const failed = after(requested, [acme.start('r1', 'disk_space'), acme.fail('r1', 'disk_space', 'full')]);
      await spec.given(failed).when(acme.tell([{ type: 'StopMigration' }], failed)).then(status, { status: 'draft', last_run_number: null, last_run_status: null, preflight_failed: false });
      await spec.given(failed).when(acme.tell([{ type: 'DeleteMigration', confirmName: 'Acme to 17' }], failed)).then((db) => getMigration(db, 'acme-17'), undefined);
    });

    it('lists by status and a case-insensitive part of the name, most recently changed first, by page', async () => {
      const globex = migrationStory({ slug: 'globex-16', name: 'Globex 100% to 16' });
      const initech = migrationStory({ slug: 'initech-18', name: 'Initech to 18' });
      const history = [...created, ...globex.tell([globex.create()]), ...initech.tell([initech.create()]), ...acme.tell([acme.run('r1')], created)];
      const list = (filters: Parameters<typeof listMigrations>[1]) => async (db: ReadModel) => {
        const { rows, total } = await listMigrations(db, filters);
        return { slugs: rows.map((row) => row.slug), total };
      };
      await spec.when(history).then(list({}), { slugs: ['acme-17', 'initech-18', 'globex-16'], total: 3 });
      await spec.when(history).then(list({ status: 'draft' }), { slugs: ['initech-18', 'globex-16'], total: 2 });
      await spec.when(history).then(list({ search: '  ACME ' }), { slugs: ['acme-17'], total: 1 });
      await spec.when(history).then(list({ search: '100%' }), { slugs: ['globex-16'], total: 1 });
      await spec.when(history).then(list({ search: 'o_1' }), { slugs: [], total: 0 });
      await spec.when(history).then(list({ status: 'draft', search: 'to' }), { slugs: ['initech-18', 'globex-16'], total: 2 });
      await spec.when(history).then(list({ page: 2, pageSize: 2 }), { slugs: ['globex-16'], total: 3 });
    });
  });

  describe('migration_runs and migration_run_steps', () => {
    const pending = (position: number, step: string, title = step, phase: 'preflight' | 'main' = 'main'): MigrationRunStepRow => ({
      job_id: 'r1',
      position,
      slug: 'acme-17',
      number: 1,
      step_id: step,
      kind: step === 'approve' ? 'gate' : step,
      title,
      phase,
      status: 'pending',
      attempts: 0,
      started_at: null,
      ended_at: null,
      duration_ms: null,
      error: null,
      warnings: [],
      gate: null,
      facts: null,
    });

    it('queues a requested run, with its plan as pending steps in plan order', async () => {
      const run: MigrationRunRow = {
        slug: 'acme-17',
        number: 1,
        job_id: 'r1',
        kind: 'run',
        status: 'queued',
        checkpoint: null,
        resumed_from: null,
        skip_preflight: false,
        reason: null,
        requested_by: 'user-ana',
        error: null,
        started_at: null,
        ended_at: null,
        created_at: at(requested, requested[1]),
      };
      await spec.given(created).when(requested.slice(1)).then(runOf(1), run);
      await spec
        .given(created)
        .when(requested.slice(1))
        .then((db) => runSteps(db, 'r1'), [
          pending(0, 'disk_space', 'Free disk space', 'preflight'),
          pending(1, 'fetch', 'Download the dump'),
          pending(2, 'restore'),
          pending(3, 'approve', 'Approve the restored data'),
          pending(4, 'upgrade'),
          pending(5, 'verify'),
        ]);
    });

    it('starts and completes a step with its attempt, duration, facts and warnings', async () => {
      const started = after(requested, [acme.start('r1', 'disk_space')]);
      const startedAt = at(started, started.at(-1));
      await spec.given(requested).when(started.slice(requested.length)).then(async (db) => [await stepOf('r1', 'disk_space')(db), (await runOf(1)(db))?.started_at], [
        { ...pending(0, 'disk_space', 'Free disk space', 'preflight'), status: 'running', attempts: 1, started_at: startedAt },
        startedAt,
      ]);
      const facts = { freeBytes: 9_000_000_000, warnings: ['the volume is 91% full'] };
      const completed = after(started, [acme.complete('r1', 'disk_space', facts, 1500)]);
      await spec
        .given(started)
        .when(completed.slice(started.length))
        .then(stepOf('r1', 'disk_space'), {
          ...pending(0, 'disk_space', 'Free disk space', 'preflight'),
          status: 'completed',
          attempts: 1,
          started_at: startedAt,
          ended_at: at(completed, completed.at(-1)),
          duration_ms: 1500,
          warnings: ['the volume is 91% full'],
          facts,
        });
    });

    it('fails a step with its error; the failed run keeps its checkpoint, error and end', async () => {
      const failed = after(requested, [...acme.ran('r1', ['disk_space']), acme.start('r1', 'fetch'), acme.fail('r1', 'fetch', 'HTTP 404')]);
      await spec.given(requested).when(failed.slice(requested.length)).then(async (db) => {
        const [fetch, run] = [await stepOf('r1', 'fetch')(db), await runOf(1)(db)];
        return [fetch?.status, fetch?.error, fetch?.duration_ms, run?.status, run?.checkpoint, run?.error, run?.ended_at];
      }, ['failed', 'HTTP 404', 800, 'failed', 'fetch', 'fetch: HTTP 404', at(failed, failed.at(-1))]);
    });

    it('starts a retry afresh: the next attempt, without the failed attempt’s error, end or duration', async () => {
      const failedOnce = after(requested, [...acme.ran('r1', ['disk_space']), acme.start('r1', 'fetch'), acme.fail('r1', 'fetch', 'connection reset', true)]);
      const retried = after(failedOnce, [acme.start('r1', 'fetch', 2)]);
      await spec.given(failedOnce).when(retried.slice(failedOnce.length)).then(stepOf('r1', 'fetch'), { ...pending(1, 'fetch', 'Download the dump'), status: 'running', attempts: 2, started_at: at(retried, retried.at(-1)) });
    });

    it('puts a paused step back to pending, marks a cancelled one cancelled, and fails one that timed out', async () => {
      const running = after(requested, [acme.start('r1', 'disk_space')]);
      await spec.given(running).when(acme.tell([{ type: 'PauseRun' }], running)).then(async (db) => [await statesOf('r1')(db), (await runOf(1)(db))?.status], [PLAN.map((step) => `${step.id} pending`), 'paused']);
      const cancelled = acme.tell([{ type: 'StopMigration' }], running).filter((draft) => draft.type !== 'MigrationStopped');
      await spec.given(running).when(cancelled).then(async (db) => [(await stepOf('r1', 'disk_space')(db))?.status, (await runOf(1)(db))?.status, (await runOf(1)(db))?.error], ['cancelled', 'cancelled', 'stop']);
      await spec.given(running).when(acme.tell([acme.timeout('r1', 'disk_space', 600_000)], running)).then(async (db) => {
        const step = await stepOf('r1', 'disk_space')(db);
        return [step?.status, step?.error, step?.duration_ms, (await runOf(1)(db))?.status];
      }, ['failed', 'timed out', 600_000, 'failed']);
    });

    it('shows a step waiting at a gate with its question, and completed once approved', async () => {
      const atGate = after(requested, [...acme.ran('r1', ['disk_space', 'fetch', 'restore']), acme.start('r1', 'approve'), acme.gate('r1', 'approve', 'Do the totals match?')]);
      await spec.given(requested).when(atGate.slice(requested.length)).then(async (db) => [await stepOf('r1', 'approve')(db).then((step) => [step?.status, step?.gate]), (await runOf(1)(db))?.status], [['waiting', 'Do the totals match?'], 'waiting']);
      const approved = after(atGate, [{ type: 'ResolveRunGate', number: 1, decision: 'approved', by: 'ana@example.com' }]);
      await spec.given(atGate).when(approved.slice(atGate.length)).then(async (db) => {
        const step = await stepOf('r1', 'approve')(db);
        return [step?.status, step?.gate, step?.facts, step?.duration_ms, (await runOf(1)(db))?.status];
      }, ['completed', null, { approvedBy: 'ana@example.com' }, at(approved, approved.at(-1)).getTime() - at(atGate, atGate.at(-2)).getTime(), 'running']);
    });

    it('shows a resume’s reused steps and a run-anyway’s skipped pre-flight as such', async () => {
      const failedUpgrade = after(requested, [...acme.ran('r1', ['disk_space', 'fetch', 'restore', 'approve']), acme.start('r1', 'upgrade'), acme.fail('r1', 'upgrade', 'module sale failed')]);
      const resumed = acme.tell([acme.run('r2')], failedUpgrade);
      await spec.given(failedUpgrade).when(resumed).then(async (db) => [await statesOf('r2')(db), await runOf(2)(db).then((run) => [run?.kind, run?.resumed_from, run?.checkpoint])], [
        ['disk_space reused', 'fetch reused', 'restore reused', 'approve reused', 'upgrade pending', 'verify pending'],
        ['resume', 1, 'approve'],
      ]);
      const preflightFailed = after(requested, [acme.start('r1', 'disk_space'), acme.fail('r1', 'disk_space', 'only 2 GB free')]);
      const anyway = acme.tell([{ type: 'RunAnyway', jobId: 'r2', reason: 'not our volume' }], preflightFailed);
      await spec.given(preflightFailed).when(anyway).then(async (db) => [(await statesOf('r2')(db))[0], await runOf(2)(db).then((run) => [run?.kind, run?.skip_preflight, run?.reason, run?.resumed_from])], [
        'disk_space skipped',
        ['run-anyway', true, 'not our volume', 1],
      ]);
    });

    it('lists runs most recent first; a stop deletes the runs and steps of its migration only, and so does a delete', async () => {
      const globex = migrationStory({ slug: 'globex-16', name: 'Globex to 16' });
      const other = globex.tell([globex.create(), globex.run('g1')]);
      const failedTwice = after(requested, [acme.start('r1', 'disk_space'), acme.fail('r1', 'disk_space', 'full'), acme.run('r2'), acme.start('r2', 'disk_space'), acme.fail('r2', 'disk_space', 'full')]);
      const counts = async (db: ReadModel) => [(await runsOf(db, 'acme-17')).map((run) => run.number), (await runSteps(db, 'r1')).length, (await runSteps(db, 'g1')).length];
      await spec.given(other).when(failedTwice).then(counts, [[2, 1], PLAN.length, PLAN.length]);
      await spec.given([...other, ...failedTwice]).when(acme.tell([{ type: 'StopMigration' }], failedTwice)).then(counts, [[], 0, PLAN.length]);
      await spec.given([...other, ...failedTwice]).when(acme.tell([{ type: 'DeleteMigration', confirmName: 'Acme to 17' }], failedTwice)).then(counts, [[], 0, PLAN.length]);
    });
  });

  it('agrees with the domain’s fold (statusOf, checkpointOf, failedInPreflight) after every event of a whole history', async () => {
    const history = acme.fullHistory();
    const domainView = (state: MigrationState) => {
      const live = state.status !== 'none' && !state.deleted ? state : null;
      const last = live?.runs.at(-1);
      return {
        detail: live ? { status: live.status, last_run_number: last?.number ?? null, last_run_status: last?.job.status ?? null, preflight_failed: last ? failedInPreflight(last) : false } : undefined,
        runs: [...(live?.runs ?? [])].reverse().map((run) => ({
          number: run.number,
          status: run.job.status,
          checkpoint: checkpointOf(run.job),
          error: run.job.error,
          steps: run.job.plan.map((step) => {
            const stepState = run.job.steps[step.id]!;
            return `${stepState.status === 'pending' && stepState.interrupted === 'cancel' ? 'cancelled' : stepState.status}/${stepState.attempts}`;
          }),
        })),
      };
    };
    const readModelView = async (db: ReadModel) => ({
      detail: await status(db),
      runs: await Promise.all(
        (await runsOf(db, 'acme-17')).map(async (run) => ({
          number: run.number,
          status: run.status,
          checkpoint: run.checkpoint,
          error: run.error,
          steps: (await runSteps(db, run.job_id)).map((step) => `${step.status}/${step.attempts}`),
        })),
      ),
    });
    // One batch per event on the emptied tables, comparing after each: the spec's given/when would replay every prefix from scratch.
    await spec.when([]).then(async (db) => {
      const disagreements = [];
      let state = initialMigrationState();
      for (const recorded of recordedEvents(history)) {
        await db.transaction().execute((trx) => erpMigrationsProjection.apply(trx, [recorded]));
        state = evolveMigration(state, recorded as unknown as MigrationEvent);
        const [expected, actual] = [domainView(state), await readModelView(db)];
        if (JSON.stringify(actual) !== JSON.stringify(expected)) disagreements.push({ after: recorded.type, expected, actual });
      }
      return disagreements;
    }, []);
  });

  it('replays a whole history twice to identical rows', async () => {
    const history = acme.fullHistory();
    await spec.given(history.slice(0, 20)).when(history.slice(20)).replayTwice();
    await spec.given(history.slice(0, -4)).when(history.slice(-4, -3)).replayTwice();
  });
});
