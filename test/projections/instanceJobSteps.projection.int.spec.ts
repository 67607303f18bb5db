import { instanceJobStepsProjection, jobStepsOf, type InstanceJobStepRow } from '#projections/instances/instanceJobSteps.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { jobSteps } from '#services/instances/domain/instance.ts';
import { planStep } from '#shared/workflow/plan.ts';
import { instanceHistory, PROVISION_FACTS } from '#test/support/instanceHistory.ts';
import { projectionSpec, recordedEvents, type EventDraft } from '#test/support/projectionSpec.ts';

const PROVISION = ['resolve_source', 'fetch_code', 'database', 'build', 'install_modules', 'start', 'health_check'];
const REBUILD_PROVISIONED = ['resolve_source', 'fetch_code', 'build', 'stop', 'update_modules', 'start', 'health_check'];

/** Each step of the job as `step state`, in order. */
const statesOf = (jobId: string) => async (db: ReadModel) => (await jobStepsOf(db, jobId)).map((row) => `${row.step} ${row.state}`);
/** One step's row, or undefined. */
const stepOf = (jobId: string, step: string) => async (db: ReadModel) => (await jobStepsOf(db, jobId)).find((row) => row.step === step);
/** When the spec records `draft` among `drafts`. */
const at = (drafts: EventDraft[], draft: EventDraft) => new Date(recordedEvents(drafts)[drafts.indexOf(draft)]!.metadata.at);

describe('instance_job_steps read model', () => {
  const spec = projectionSpec(instanceJobStepsProjection);
  const acme = instanceHistory();
  const pending = (jobId: string, position: number, step: string): InstanceJobStepRow => ({
    job_id: jobId,
    position,
    slug: 'acme-dev',
    step,
    state: 'pending',
    attempts: 0,
    started_at: null,
    ended_at: null,
    duration_ms: null,
    error: null,
    log_tail: null,
  });

  describe('a requested job', () => {
    it('lists the plan the request carries as pending steps, in plan order', async () => {
      await spec.when([acme.requested('j1')]).then((db) => jobStepsOf(db, 'j1'), PROVISION.map((step, position) => pending('j1', position, step)));
    });

    it('follows the event plan, not the rules of today', async () => {
      const plan = [planStep('stop'), planStep('snapshot', { timeoutS: 600 }), planStep('upgrade', { params: { to: '18.0' }, retries: { count: 2, backoffS: 5 } }), planStep('start'), planStep('health_check')];
      await spec.given([acme.requested('j1'), ...acme.ranJob('j1', PROVISION, 'provision', 'running')]).when([acme.action('restart', 'j2', { plan })]).then(statesOf('j2'), ['stop pending', 'snapshot pending', 'upgrade pending', 'start pending', 'health_check pending']);
    });

    it('gives a request from before plans the plan of its time', async () => {
      const legacy = { legacy: true };
      await spec.when([acme.requested('j1', legacy)]).then(statesOf('j1'), PROVISION.map((step) => `${step} pending`));
      await spec
        .given([acme.requested('j1', legacy), ...acme.ranJob('j1', PROVISION, 'provision', 'running', legacy)])
        .when([acme.action('restart', 'j2', legacy)])
        .then(statesOf('j2'), ['stop pending', 'start pending', 'health_check pending']);
    });

    it('gives a legacy rebuild of a provisioned instance the rebuild plan, and of one never provisioned the provisioning plan', async () => {
      const legacy = { legacy: true };
      const provisionedThenFailed = [acme.requested('j1', legacy), ...['resolve_source', 'fetch_code', 'database'].flatMap((step) => [acme.started('j1', step, legacy), acme.completed('j1', step, legacy)]), acme.started('j1', 'build', legacy), acme.failed('j1', 'build', 'pip install failed')];
      await spec.given(provisionedThenFailed).when([acme.action('rebuild', 'j2', legacy)]).then(statesOf('j2'), REBUILD_PROVISIONED.map((step) => `${step} pending`));
      const neverProvisioned = [acme.requested('j1', legacy), acme.started('j1', 'resolve_source', legacy), acme.failed('j1', 'resolve_source', 'repository not found')];
      await spec.given(neverProvisioned).when([acme.action('rebuild', 'j2', legacy)]).then(statesOf('j2'), PROVISION.map((step) => `${step} pending`));
    });

    it('keeps the rows of earlier jobs: each job has its own', async () => {
      const history = [acme.requested('j1'), ...acme.ranJob('j1', PROVISION, 'provision', 'running')];
      await spec.given(history).when([acme.action('stop', 'j2')]).then(async (db) => [await statesOf('j1')(db), await statesOf('j2')(db)], [PROVISION.map((step) => `${step} completed`), ['stop pending']]);
    });
  });

  describe('a step', () => {
    const requested = acme.requested('j1');

    it('runs from its start, with its attempt, and completes with its duration', async () => {
      const started = acme.started('j1', 'resolve_source');
      const completed = acme.completed('j1', 'resolve_source', { facts: PROVISION_FACTS['resolve_source'], durationMs: 1500 });
      await spec.given([requested]).when([started]).then(stepOf('j1', 'resolve_source'), { ...pending('j1', 0, 'resolve_source'), state: 'running', attempts: 1, started_at: at([requested, started], started) });
      const drafts = [requested, started, completed];
      await spec
        .given([requested, started])
        .when([completed])
        .then(stepOf('j1', 'resolve_source'), { ...pending('j1', 0, 'resolve_source'), state: 'completed', attempts: 1, started_at: at(drafts, started), ended_at: at(drafts, completed), duration_ms: 1500 });
    });

    it('shows a step completed without the work as skipped or reused', async () => {
      await spec
        .given([requested, acme.started('j1', 'resolve_source'), acme.completed('j1', 'resolve_source'), acme.started('j1', 'fetch_code')])
        .when([acme.completed('j1', 'fetch_code', { as: 'reused', facts: { commit: 'aaaaaaa1' } })])
        .then(statesOf('j1'), ['resolve_source completed', 'fetch_code reused', ...PROVISION.slice(2).map((step) => `${step} pending`)]);
    });

    it('fails with its error and log tail: a legacy failure and a final one alike', async () => {
      const logTail = ['Collecting odoo', 'ERROR: No matching distribution found for odoo'];
      const failed = (retryable?: boolean) => acme.failed('j1', 'resolve_source', 'git ls-remote exited with 128', { retryable, logTail, durationMs: 640 });
      for (const failure of [failed(), failed(false)]) {
        await spec
          .given([requested, acme.started('j1', 'resolve_source')])
          .when([failure])
          .then(async (db) => {
            const row = await stepOf('j1', 'resolve_source')(db);
            return row && { state: row.state, error: row.error, log_tail: row.log_tail, duration_ms: row.duration_ms };
          }, { state: 'failed', error: 'git ls-remote exited with 128', log_tail: logTail, duration_ms: 640 });
      }
    });

    it('starts its retry afresh: running, the next attempt, no error, duration or log of the failed one', async () => {
      const started = acme.started('j1', 'resolve_source', { attempt: 2 });
      const drafts = [requested, acme.started('j1', 'resolve_source'), acme.failed('j1', 'resolve_source', 'connection reset', { retryable: true }), started];
      await spec.given(drafts.slice(0, 3)).when([started]).then(stepOf('j1', 'resolve_source'), { ...pending('j1', 0, 'resolve_source'), state: 'running', attempts: 2, started_at: at(drafts, started) });
    });

    it('shows a step a destroy cancelled as cancelled, and one that ran past its timeout as failed', async () => {
      const running = [requested, ...['resolve_source', 'fetch_code', 'database', 'build'].flatMap((step) => [acme.started('j1', step), acme.completed('j1', step)]), acme.started('j1', 'install_modules')];
      const cancelled = acme.interrupted('j1', 'install_modules', 'cancel');
      await spec
        .given(running)
        .when([cancelled, acme.jobCancelled('j1'), acme.action('destroy', 'j2')])
        .then(async (db) => [await stepOf('j1', 'install_modules')(db), await statesOf('j2')(db)], [
          {
            ...pending('j1', 4, 'install_modules'),
            state: 'cancelled',
            attempts: 1,
            started_at: at(running, running.at(-1)!),
            ended_at: at([...running, cancelled], cancelled),
            error: 'cancelled: the job was stopped while this step ran',
          },
          jobSteps('destroy', true).map((step) => `${step} pending`),
        ]);
      await spec
        .given(running)
        .when([acme.interrupted('j1', 'install_modules', 'timeout', { durationMs: 3_600_000 })])
        .then(async (db) => {
          const row = await stepOf('j1', 'install_modules')(db);
          return row && { state: row.state, error: row.error, duration_ms: row.duration_ms };
        }, { state: 'failed', error: 'timed out', duration_ms: 3_600_000 });
    });
  });

  it('deletes every job of a purged instance, and only its own', async () => {
    const other = instanceHistory({ slug: 'acme-prod', name: 'prod', stage: 'production' });
    const destroyed = [acme.requested('j1'), ...acme.ranJob('j1', PROVISION, 'provision', 'running'), acme.action('destroy', 'j2'), ...acme.ranJob('j2', jobSteps('destroy', true), 'destroy', 'destroyed')];
    await spec
      .given([other.requested('k1'), ...destroyed])
      .when([acme.purged()])
      .then(async (db) => [(await jobStepsOf(db, 'j1')).length, (await jobStepsOf(db, 'j2')).length, (await jobStepsOf(db, 'k1')).length], [0, 0, PROVISION.length]);
  });

  it('replays a whole history twice to identical rows', async () => {
    const legacy = { legacy: true };
    await spec
      .given([
        acme.requested('j1', legacy),
        ...['resolve_source', 'fetch_code', 'database'].flatMap((step) => [acme.started('j1', step, legacy), acme.completed('j1', step, legacy)]),
        acme.started('j1', 'build', legacy),
        acme.failed('j1', 'build', 'pip install failed'),
        acme.action('rebuild', 'j2', legacy),
        ...acme.ranJob('j2', REBUILD_PROVISIONED, 'rebuild', 'running', legacy),
      ])
      .when([
        acme.action('restart', 'j3'),
        acme.started('j3', 'stop'),
        acme.completed('j3', 'stop'),
        acme.started('j3', 'start'),
        acme.failed('j3', 'start', 'port 21000 is taken', { retryable: true }),
        acme.started('j3', 'start', { attempt: 2 }),
        acme.interrupted('j3', 'start', 'timeout', { attempt: 2, durationMs: 120_000 }),
        acme.started('j3', 'start', { attempt: 3 }),
        acme.interrupted('j3', 'start', 'cancel', { attempt: 3 }),
        acme.jobCancelled('j3'),
        acme.action('destroy', 'j4'),
        ...acme.ranJob('j4', jobSteps('destroy', true), 'destroy', 'destroyed'),
      ])
      .replayTwice();
  });
});
