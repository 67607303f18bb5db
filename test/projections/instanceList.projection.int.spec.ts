import { allInstances, instanceListProjection, listInstances, type InstanceListRow } from '#projections/instances/instanceList.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { jobSteps } from '#services/instances/domain/instance.ts';
import { instanceHistory, PROVISION_FACTS } from '#test/support/instanceHistory.ts';
import { projectionSpec, recordedEvents, type EventDraft } from '#test/support/projectionSpec.ts';

const PROVISION = jobSteps('provision', false);

/** Status, URL and last error of each instance, by slug. */
const statuses = async (db: ReadModel) => (await allInstances(db, {})).map((row) => ({ slug: row.slug, status: row.status, url: row.url, last_error: row.last_error }));
/** When the spec records `draft` among `drafts`. */
const at = (drafts: EventDraft[], draft: EventDraft) => new Date(recordedEvents(drafts)[drafts.indexOf(draft)]!.metadata.at);

describe('instance_list read model', () => {
  const spec = projectionSpec(instanceListProjection);
  const acme = instanceHistory();
  const requested = acme.requested('j1');
  const provisioned = [requested, ...acme.ranJob('j1', PROVISION, 'provision', 'running', { facts: PROVISION_FACTS })];
  const acmeStatus = (status: InstanceListRow['status'], url: string | null = null, last_error: string | null = null) => [{ slug: 'acme-dev', status, url, last_error }];

  it('lists a requested instance, queued, with its InstanceOut columns', async () => {
    const when = at([requested], requested);
    const expected: InstanceListRow = {
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
    };
    await spec.when([requested]).then((db) => allInstances(db, {}), [expected]);
  });

  describe('status when a step starts (statusOnStepStarted)', () => {
    it('moves a queued instance to provisioning at its provisioning\'s first step', async () => {
      await spec.given([requested]).when([acme.started('j1', 'resolve_source')]).then(statuses, acmeStatus('provisioning'));
    });

    it('shows a rebuild queued until its first step, then provisioning', async () => {
      const rebuild = acme.action('rebuild', 'j2');
      await spec.given(provisioned).when([rebuild]).then(statuses, acmeStatus('queued', 'http://127.0.0.1:21000'));
      await spec.given([...provisioned, rebuild]).when([acme.started('j2', 'resolve_source')]).then(statuses, acmeStatus('provisioning', 'http://127.0.0.1:21000'));
    });

    it('keeps the status other jobs act on: a restart of a running instance stays running', async () => {
      await spec.given([...provisioned, acme.action('restart', 'j2')]).when([acme.started('j2', 'stop')]).then(statuses, acmeStatus('running', 'http://127.0.0.1:21000'));
    });

    it('moves a queued instance to provisioning at the first step of any job: a destroy before its provisioning started', async () => {
      await spec.given([requested, acme.jobCancelled('j1'), acme.action('destroy', 'j2', { provisioned: false })]).when([acme.started('j2', 'stop')]).then(statuses, acmeStatus('provisioning'));
    });
  });

  it('shows where a provisioned instance answers, and forgets it when it stops', async () => {
    await spec.given([requested]).when(provisioned.slice(1)).then(statuses, acmeStatus('running', 'http://127.0.0.1:21000'));
    await spec.given(provisioned).when([acme.action('stop', 'j2'), ...acme.ranJob('j2', ['stop'], 'stop', 'stopped')]).then(statuses, acmeStatus('stopped'));
  });

  describe('a failed step', () => {
    const building = [requested, ...['resolve_source', 'fetch_code', 'database'].flatMap((step) => [acme.started('j1', step), acme.completed('j1', step)]), acme.started('j1', 'build')];

    it('fails the instance when it is a legacy failure (no retryable)', async () => {
      const legacy = { legacy: true };
      await spec
        .given([acme.requested('j1', legacy), acme.started('j1', 'resolve_source', legacy)])
        .when([acme.failed('j1', 'resolve_source', 'repository not found')])
        .then(statuses, acmeStatus('failed', null, 'resolve_source: repository not found'));
    });

    it('leaves the instance as it was when it will be retried', async () => {
      await spec.given(building).when([acme.failed('j1', 'build', 'connection reset', { retryable: true })]).then(statuses, acmeStatus('provisioning'));
    });

    it('fails the instance with InstanceJobFailed, naming the step; a later success clears the error', async () => {
      const failed = [...building, acme.failed('j1', 'build', 'pip install failed', { retryable: false }), acme.jobFailed('j1', 'build', 'pip install failed')];
      await spec.given(building).when(failed.slice(building.length)).then(statuses, acmeStatus('failed', null, 'build: pip install failed'));
      await spec
        .given(failed)
        .when([acme.action('rebuild', 'j2'), ...acme.ranJob('j2', jobSteps('rebuild', true), 'rebuild', 'running', { facts: PROVISION_FACTS })])
        .then(statuses, acmeStatus('running', 'http://127.0.0.1:21000'));
    });
  });

  it('fails a running instance whose ERP process exited', async () => {
    await spec.given(provisioned).when([acme.processExited(1)]).then(statuses, acmeStatus('failed', 'http://127.0.0.1:21000', 'the ERP process exited with code 1'));
  });

  it('shows a destroy that cancelled the running job as provisioning until it ends, then destroyed', async () => {
    const installing = [requested, ...['resolve_source', 'fetch_code', 'database', 'build'].flatMap((step) => [acme.started('j1', step), acme.completed('j1', step)]), acme.started('j1', 'install_modules')];
    const destroy = [acme.interrupted('j1', 'install_modules', 'cancel'), acme.jobCancelled('j1'), acme.action('destroy', 'j2'), acme.started('j2', 'stop')];
    await spec.given(installing).when(destroy).then(statuses, acmeStatus('provisioning'));
    await spec.given([...installing, ...destroy]).when([acme.completed('j2', 'stop'), ...acme.ranJob('j2', ['drop_database', 'remove_files'], 'destroy', 'destroyed')]).then(statuses, acmeStatus('destroyed'));
  });

  it('filters by stage, status, project and branch, and searches names, slugs and projects', async () => {
    const prod = instanceHistory({ slug: 'globex-prod', name: 'Prod', project: 'globex', stage: 'production', branch: '17.0', erpVersion: '18.0' });
    const given = [...provisioned, prod.requested('k1')];
    const slugs = (filters: Parameters<typeof allInstances>[1]) => async (db: ReadModel) => (await allInstances(db, filters)).map((row) => row.slug);
    await spec.given(given).when([]).then(slugs({}), ['globex-prod', 'acme-dev']);
    await spec.given(given).when([]).then(slugs({ stage: 'production' }), ['globex-prod']);
    await spec.given(given).when([]).then(slugs({ status: 'running' }), ['acme-dev']);
    await spec.given(given).when([]).then(slugs({ version: '18.0', branch: '17.0', project: 'globex' }), ['globex-prod']);
    await spec.given(given).when([]).then(slugs({ q: 'PROD' }), ['globex-prod']);
    await spec.given(given).when([]).then(async (db) => {
      const page = await listInstances(db, { pageSize: 1, page: 2 });
      return { slugs: page.rows.map((row) => row.slug), total: page.total, page: page.page, pageCount: page.pageCount };
    }, { slugs: ['acme-dev'], total: 2, page: 2, pageCount: 2 });
  });

  it('deletes a purged instance', async () => {
    const destroyed = [...provisioned, acme.action('destroy', 'j2'), ...acme.ranJob('j2', jobSteps('destroy', true), 'destroy', 'destroyed')];
    await spec.given(destroyed).when([acme.purged()]).then((db) => allInstances(db, {}), []);
  });

  it('replays a whole history twice to identical rows', async () => {
    const legacy = { legacy: true };
    await spec
      .given([
        acme.requested('j1', legacy),
        acme.started('j1', 'resolve_source', legacy),
        acme.failed('j1', 'resolve_source', 'repository not found'),
        acme.action('rebuild', 'j2', legacy),
        ...acme.ranJob('j2', PROVISION, 'rebuild', 'running', { legacy: true, facts: PROVISION_FACTS }),
      ])
      .when([
        acme.processExited(null),
        acme.action('restart', 'j3'),
        acme.started('j3', 'stop'),
        acme.completed('j3', 'stop'),
        acme.started('j3', 'start'),
        acme.failed('j3', 'start', 'port 21000 is taken', { retryable: true }),
        acme.started('j3', 'start', { attempt: 2 }),
        acme.interrupted('j3', 'start', 'cancel', { attempt: 2 }),
        acme.jobCancelled('j3'),
        acme.action('destroy', 'j4'),
        ...acme.ranJob('j4', jobSteps('destroy', true), 'destroy', 'destroyed'),
      ])
      .replayTwice();
  });
});
