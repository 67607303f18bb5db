import { destroyedInstances, getInstance, idleDevelopmentInstances, instanceDetailProjection, instancesToRecover, isBehind, keptPorts, type InstanceDetailRow } from '#projections/instances/instanceDetail.ts';
import { migrationWorkingInstances } from '#projections/instances/migrationWorkingInstances.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { jobSteps } from '#services/instances/domain/instance.ts';
import { instanceHistory, PROVISION_FACTS } from '#test/support/instanceHistory.ts';
import { projectionSpec, recordedEvents, type EventDraft } from '#test/support/projectionSpec.ts';

const PROVISION = jobSteps('provision', false);

/** The columns a scenario looks at, from the instance's row. */
function detailOf<K extends keyof InstanceDetailRow>(slug: string, ...columns: K[]) {
  return async (db: ReadModel): Promise<Pick<InstanceDetailRow, K> | undefined> => {
    const row = await getInstance(db, slug);
    return row && (Object.fromEntries(columns.map((column) => [column, row[column]])) as Pick<InstanceDetailRow, K>);
  };
}
/** When the spec records `draft` among `drafts`. */
const at = (drafts: EventDraft[], draft: EventDraft) => new Date(recordedEvents(drafts)[drafts.indexOf(draft)]!.metadata.at);

describe('instance_detail read model', () => {
  const spec = projectionSpec(instanceDetailProjection);
  const acme = instanceHistory();
  const requested = acme.requested('j1');
  const provisioned = [requested, ...acme.ranJob('j1', PROVISION, 'provision', 'running', { facts: PROVISION_FACTS })];
  const status = detailOf('acme-dev', 'status', 'job_id', 'job_kind', 'job_active', 'last_error');

  it('shows a requested instance queued, with its settings, source and provisioning job', async () => {
    const uploaded = instanceHistory({ source: { kind: 'upload', uploadId: '0b9e4c1e-2f7a-4c1d-9d2e-1f0a8b7c6d5e', dumpFormat: 'custom', hasFilestore: true } });
    const request = uploaded.requested('j1', { actor: 'user-ben' });
    const when = at([request], request);
    const expected: InstanceDetailRow = {
      slug: 'acme-dev',
      name: 'dev',
      project: 'acme',
      stage: 'development',
      erp_version: '17.0',
      edition: 'community',
      modules: ['sale', 'stock'],
      git_repo: 'git@github.com:acme/erp.git',
      branch: 'main',
      status: 'queued',
      url: null,
      last_error: null,
      created_at: when,
      updated_at: when,
      source: { kind: 'upload', uploadId: '0b9e4c1e-2f7a-4c1d-9d2e-1f0a8b7c6d5e', dumpFormat: 'custom', hasFilestore: true },
      created_by: 'user-ben',
      runtime: null,
      standin: false,
      commit: null,
      branch_head: null,
      addons_path: null,
      port: null,
      demo_data: false,
      gevent_port: null,
      gevent_url: null,
      neutralization: null,
      provisioned: false,
      rebuild_pending: false,
      job_id: 'j1',
      job_kind: 'provision',
      job_active: true,
      last_action_at: when,
    };
    await spec.when([request]).then((db) => getInstance(db, 'acme-dev'), expected);
  });

  describe('status when a step starts (statusOnStepStarted)', () => {
    it('moves a queued instance to provisioning at the first step of its provisioning', async () => {
      await spec.given([requested]).when([acme.started('j1', 'resolve_source')]).then(detailOf('acme-dev', 'status'), { status: 'provisioning' });
    });

    it('shows a rebuild queued until its first step, then provisioning', async () => {
      const rebuild = acme.action('rebuild', 'j2');
      await spec.given(provisioned).when([rebuild]).then(status, { status: 'queued', job_id: 'j2', job_kind: 'rebuild', job_active: true, last_error: null });
      await spec.given([...provisioned, rebuild]).when([acme.started('j2', 'resolve_source')]).then(detailOf('acme-dev', 'status'), { status: 'provisioning' });
    });

    it('keeps the status other jobs act on: a restart of a running instance stays running', async () => {
      await spec.given([...provisioned, acme.action('restart', 'j2')]).when([acme.started('j2', 'stop')]).then(status, { status: 'running', job_id: 'j2', job_kind: 'restart', job_active: true, last_error: null });
    });

    it('moves a queued instance to provisioning at the first step of any job: a destroy before its provisioning started', async () => {
      await spec
        .given([requested, acme.jobCancelled('j1'), acme.action('destroy', 'j2', { provisioned: false })])
        .when([acme.started('j2', 'stop')])
        .then(status, { status: 'provisioning', job_id: 'j2', job_kind: 'destroy', job_active: true, last_error: null });
    });
  });

  it('keeps what the steps learned and the end of the job: running, where, which commit', async () => {
    await spec.given([requested]).when(provisioned.slice(1)).then(detailOf('acme-dev', 'status', 'url', 'port', 'runtime', 'standin', 'commit', 'branch_head', 'addons_path', 'provisioned', 'job_active'), {
      status: 'running',
      url: 'http://127.0.0.1:21000',
      port: 21000,
      runtime: 'process',
      standin: true,
      commit: 'aaaaaaa1',
      branch_head: 'aaaaaaa1',
      addons_path: ['/srv/forja/instances/acme-dev/src', '/srv/forja/instances/acme-dev/src/addons'],
      provisioned: true,
      job_active: false,
    });
  });

  describe('a failed step', () => {
    const building = [requested, ...['resolve_source', 'fetch_code', 'database'].flatMap((step) => [acme.started('j1', step), acme.completed('j1', step)]), acme.started('j1', 'build')];

    it('fails the instance and ends the job when it is a legacy failure (no retryable)', async () => {
      const legacy = { legacy: true };
      const legacyBuilding = [acme.requested('j1', legacy), ...['resolve_source', 'fetch_code', 'database'].flatMap((step) => [acme.started('j1', step, legacy), acme.completed('j1', step, legacy)]), acme.started('j1', 'build', legacy)];
      await spec
        .given(legacyBuilding)
        .when([acme.failed('j1', 'build', 'pip install failed')])
        .then(detailOf('acme-dev', 'status', 'last_error', 'job_active', 'provisioned'), { status: 'failed', last_error: 'build: pip install failed', job_active: false, provisioned: true });
    });

    it('leaves the instance and its job as they were when it will be retried', async () => {
      await spec.given(building).when([acme.failed('j1', 'build', 'connection reset', { retryable: true })]).then(status, { status: 'provisioning', job_id: 'j1', job_kind: 'provision', job_active: true, last_error: null });
    });

    it('fails the instance and ends the job with InstanceJobFailed, naming the step', async () => {
      await spec
        .given([...building, acme.failed('j1', 'build', 'connection reset', { retryable: true }), acme.started('j1', 'build', { attempt: 2 })])
        .when([acme.failed('j1', 'build', 'connection reset', { retryable: true, attempt: 2 }), acme.jobFailed('j1', 'build', 'connection reset')])
        .then(status, { status: 'failed', job_id: 'j1', job_kind: 'provision', job_active: false, last_error: 'build: connection reset' });
    });
  });

  describe('which neutralization its database got', () => {
    const neutralization = detailOf('acme-dev', 'neutralization');
    const line = "ERP neutralize (16.0+): every installed module's data/neutralize.sql";
    const databaseStep = (job: string, facts: Record<string, string>) => [acme.started(job, 'database'), acme.completed(job, 'database', { facts })];

    it('shows what the database step said, and forgets it when a later database step neutralized nothing', async () => {
      await spec.given([requested]).when(databaseStep('j1', { neutralization: line })).then(neutralization, { neutralization: line });
      await spec.given([requested, ...databaseStep('j1', { neutralization: line })]).when(databaseStep('j1', {})).then(neutralization, { neutralization: null });
    });
  });

  describe('a destroy during a job', () => {
    const installing = [requested, ...['resolve_source', 'fetch_code', 'database', 'build'].flatMap((step) => [acme.started('j1', step), acme.completed('j1', step, { facts: PROVISION_FACTS[step] ?? {} })]), acme.started('j1', 'install_modules')];
    const destroy = [acme.interrupted('j1', 'install_modules', 'cancel'), acme.jobCancelled('j1'), acme.action('destroy', 'j2')];

    it('makes the destroy the active job once the running one is cancelled', async () => {
      await spec.given(installing).when(destroy).then(status, { status: 'provisioning', job_id: 'j2', job_kind: 'destroy', job_active: true, last_error: null });
    });

    it('leaves a destroyed instance without a database, URL or active job', async () => {
      await spec
        .given([...installing, ...destroy])
        .when(acme.ranJob('j2', jobSteps('destroy', true), 'destroy', 'destroyed'))
        .then(detailOf('acme-dev', 'status', 'provisioned', 'url', 'job_active'), { status: 'destroyed', provisioned: false, url: null, job_active: false });
    });
  });

  describe('a push during a job', () => {
    const restarting = [...provisioned, acme.action('restart', 'j2'), acme.started('j2', 'stop')];
    const pending = detailOf('acme-dev', 'rebuild_pending', 'branch_head', 'commit', 'job_id', 'job_kind', 'status');

    it('marks a rebuild pending and remembers the branch head the push announced', async () => {
      await spec
        .given(restarting)
        .when([acme.rebuildDeferred('p1', 'bbbbbbb2')])
        .then(pending, { rebuild_pending: true, branch_head: 'bbbbbbb2', commit: 'aaaaaaa1', job_id: 'j2', job_kind: 'restart', status: 'running' });
    });

    it('runs the pending rebuild when the job ends, and shows the instance behind its branch until then', async () => {
      await spec
        .given([...restarting, acme.rebuildDeferred('p1', 'bbbbbbb2')])
        .when([acme.completed('j2', 'stop'), acme.started('j2', 'start'), acme.completed('j2', 'start'), acme.started('j2', 'health_check'), acme.completed('j2', 'health_check'), acme.jobSucceeded('j2', 'restart', 'running'), acme.action('rebuild', 'p1', { reason: 'push' })])
        .then(async (db) => {
          const row = await pending(db);
          return row && { ...row, behind: isBehind(row) };
        }, { rebuild_pending: false, branch_head: 'bbbbbbb2', commit: 'aaaaaaa1', job_id: 'p1', job_kind: 'rebuild', status: 'queued', behind: true });
    });
  });

  it('moves last_action_at for people and pushes, not for the idle sweep or a restart of the platform', async () => {
    const drafts = [...provisioned, acme.action('sleep', 'j2', { reason: 'idle' }), ...acme.ranJob('j2', ['stop'], 'sleep', 'sleeping'), acme.action('start', 'j3', { reason: 'boot' })];
    await spec.given(provisioned).when(drafts.slice(provisioned.length)).then(detailOf('acme-dev', 'last_action_at', 'status'), { last_action_at: at(drafts, requested), status: 'sleeping' });
  });

  it('answers the executor and web queries from the rows', async () => {
    const other = instanceHistory({ slug: 'acme-old', name: 'old' });
    const old = [other.requested('k1'), ...other.ranJob('k1', PROVISION, 'provision', 'running', { facts: { start: { port: 21001, url: 'http://127.0.0.1:21001' } } }), other.action('destroy', 'k2'), ...other.ranJob('k2', jobSteps('destroy', true), 'destroy', 'destroyed')];
    await spec.given([...provisioned, ...old]).when([]).then(async (db) => ({
      destroyed: await destroyedInstances(db),
      ports: [...(await keptPorts(db))],
      idle: await idleDevelopmentInstances(db, new Date('2030-01-01T00:00:00.000Z')),
      recover: await instancesToRecover(db),
    }), { destroyed: [{ slug: 'acme-old' }], ports: [21000], idle: [{ slug: 'acme-dev' }], recover: [{ slug: 'acme-dev', status: 'running', job_id: 'j1', job_active: false, runtime: 'process' }] });
  });

  it('finds the working instances a migration\'s runs started, by run, not destroyed ones nor other migrations\'', async () => {
    const source = (migration: string, run: number) => ({ kind: 'migration' as const, migration, run, database: `forja_mig_${run}`, filestoreDir: null });
    const r1 = instanceHistory({ slug: 'acme-17-r1', name: 'r1', source: source('acme-17', 1) });
    const r2 = instanceHistory({ slug: 'acme-17-r2', name: 'r2', source: source('acme-17', 2) });
    const gone = instanceHistory({ slug: 'acme-17-r3', name: 'r3', source: source('acme-17', 3) });
    const other = instanceHistory({ slug: 'beta-17-r1', name: 'b1', source: source('beta-17', 1) });
    const drafts = [
      r1.requested('m1'),
      r2.requested('m2'),
      ...other.ranJob('o1', PROVISION, 'provision', 'running'),
      gone.requested('g1'),
      gone.action('destroy', 'g2'),
      ...gone.ranJob('g2', jobSteps('destroy', true), 'destroy', 'destroyed'),
    ];
    await spec.when([other.requested('o1'), ...drafts]).then((db) => migrationWorkingInstances(db, 'acme-17'), [
      { slug: 'acme-17-r1', run: 1, status: 'queued' },
      { slug: 'acme-17-r2', run: 2, status: 'queued' },
    ]);
  });

  describe('an ERP with workers (issue 25)', () => {
    const workers = instanceHistory({ slug: 'acme-work', name: 'work', demoData: true });
    const gevent = { port: 21000, url: 'http://127.0.0.1:21000', geventPort: 21001, geventUrl: 'http://127.0.0.1:21001' };
    const running = [workers.requested('w1'), ...workers.ranJob('w1', PROVISION, 'provision', 'running', { facts: { ...PROVISION_FACTS, start: gevent } })];
    const row = detailOf('acme-work', 'demo_data', 'gevent_port', 'gevent_url', 'url');

    it('keeps its gevent port and URL (the ERP router\'s /websocket target) and the demo data it asked for; both ports stay kept', async () => {
      await spec.given([]).when(running).then(async (db) => ({ row: await row(db), ports: [...(await keptPorts(db))].sort() }), {
        row: { demo_data: true, gevent_port: 21001, gevent_url: 'http://127.0.0.1:21001', url: 'http://127.0.0.1:21000' },
        ports: [21000, 21001],
      });
    });

    it('forgets the gevent URL when it stops, and when it starts again without workers; keeps the port', async () => {
      await spec.given(running).when([workers.action('stop', 'w2'), ...workers.ranJob('w2', ['stop'], 'stop', 'stopped')]).then(row, { demo_data: true, gevent_port: 21001, gevent_url: null, url: null });
      const threaded = [workers.action('restart', 'w3'), ...workers.ranJob('w3', ['stop', 'start', 'health_check'], 'restart', 'running', { facts: { start: { port: 21000, url: 'http://127.0.0.1:21000' } } })];
      await spec.given(running).when(threaded).then(row, { demo_data: true, gevent_port: 21001, gevent_url: null, url: 'http://127.0.0.1:21000' });
    });
  });

  it('deletes a purged instance', async () => {
    const destroyed = [...provisioned, acme.action('destroy', 'j2'), ...acme.ranJob('j2', jobSteps('destroy', true), 'destroy', 'destroyed')];
    await spec.given(destroyed).when([acme.purged()]).then((db) => getInstance(db, 'acme-dev'), undefined);
  });

  it('replays a whole history twice to identical rows', async () => {
    const legacy = { legacy: true };
    const history: EventDraft[] = [
      acme.requested('j1', legacy),
      ...['resolve_source', 'fetch_code', 'database'].flatMap((step) => [acme.started('j1', step, legacy), acme.completed('j1', step, { legacy: true, facts: PROVISION_FACTS[step] ?? {} })]),
      acme.started('j1', 'build', legacy),
      acme.failed('j1', 'build', 'pip install failed'),
      acme.action('rebuild', 'j2', legacy),
      ...acme.ranJob('j2', jobSteps('rebuild', true), 'rebuild', 'running', { legacy: true, facts: PROVISION_FACTS }),
    ];
    await spec
      .given(history)
      .when([
        acme.action('restart', 'j3'),
        acme.started('j3', 'stop'),
        acme.rebuildDeferred('p1', 'bbbbbbb2'),
        acme.completed('j3', 'stop'),
        acme.started('j3', 'start'),
        acme.failed('j3', 'start', 'port 21000 is taken', { retryable: true }),
        acme.started('j3', 'start', { attempt: 2 }),
        acme.failed('j3', 'start', 'port 21000 is taken', { retryable: true, attempt: 2 }),
        acme.jobFailed('j3', 'start', 'port 21000 is taken'),
        acme.action('rebuild', 'p1', { reason: 'push' }),
        acme.started('p1', 'resolve_source'),
        acme.interrupted('p1', 'resolve_source', 'cancel'),
        acme.jobCancelled('p1'),
        acme.action('destroy', 'j4'),
        ...acme.ranJob('j4', jobSteps('destroy', true), 'destroy', 'destroyed'),
      ])
      .replayTwice();
    // The purge, last, must leave nothing behind whichever way it is replayed.
    await spec.given(history).when([acme.action('destroy', 'j3'), ...acme.ranJob('j3', jobSteps('destroy', true), 'destroy', 'destroyed'), acme.purged()]).replayTwice();
  });
});
