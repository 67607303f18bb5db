import { expect } from 'chai';
import { DomainError } from '#shared/decider/decider.ts';
import { instanceAddress, slugFromHost } from '#shared/http/instanceAddress.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { erpActivity } from '#services/control-plane/erpRouter/erpActivity.ts';
import { isDatabaseManagerPath } from '#services/control-plane/erpRouter/closedPaths.ts';
import { routeFor, targetOf } from '#services/control-plane/erpRouter/erpRouter.ts';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import { instancePlan, type InstanceEvent, type InstanceStatus, type JobKind } from '#services/instances/domain/instance.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';
import { waitUntil } from '#test/support/wait.ts';

describe('ERP router addresses', () => {
  it('reads the instance slug from a Host under the domain, with or without a port', () => {
    expect(slugFromHost('acme-dev.localhost:8083', 'localhost')).to.equal('acme-dev');
    expect(slugFromHost('ACME-Dev.LocalHost', 'localhost')).to.equal('acme-dev');
    expect(slugFromHost('acme-dev.erp.example.com.', 'erp.example.com')).to.equal('acme-dev');
  });

  it('names no instance for another domain, a bare domain, nested labels or a malformed label', () => {
    for (const host of [undefined, '', 'localhost:8083', '127.0.0.1:8083', '[::1]:8083', 'acme.example.com', 'a.b.localhost', '-acme.localhost', 'acme-.localhost', 'ac_me.localhost', 'xlocalhost', '.localhost']) {
      expect(slugFromHost(host, 'localhost'), String(host)).to.equal(null);
    }
  });

  it('links to the router port on localhost and to https behind a TLS proxy elsewhere', () => {
    expect(instanceAddress('acme-dev', 'localhost', 8083)).to.equal('http://acme-dev.localhost:8083/');
    expect(instanceAddress('acme-dev', 'erp.example.com', 8083)).to.equal('https://acme-dev.erp.example.com/');
  });
});

describe('ERP router routes', () => {
  const row = (status: InstanceStatus, extra: Partial<{ url: string | null; job_active: boolean; job_kind: string }> = {}) => ({ status, url: null, job_active: false, job_kind: 'provision', ...extra });

  it('proxies a running instance with a URL, wakes an idle sleeping one, holds those on their way', () => {
    expect(routeFor(row('running', { url: 'http://127.0.0.1:21000' }))).to.deep.equal({ kind: 'proxy', url: 'http://127.0.0.1:21000' });
    expect(routeFor(row('sleeping'))).to.deep.equal({ kind: 'wake' });
    expect(routeFor(row('sleeping', { job_active: true, job_kind: 'start' }))).to.deep.equal({ kind: 'wait', doing: 'waking up' });
    expect(routeFor(row('provisioning', { job_active: true }))).to.deep.equal({ kind: 'wait', doing: 'being built' });
    expect(routeFor(row('queued', { job_active: true }))).to.deep.equal({ kind: 'wait', doing: 'queued' });
  });

  it('sends /websocket to the gevent process of an ERP with workers, however spelled; a threaded ERP keeps it on HTTP', () => {
    const workers = routeFor({ ...row('running', { url: 'http://127.0.0.1:21000' }), gevent_url: 'http://127.0.0.1:21001' });
    expect(workers).to.deep.equal({ kind: 'proxy', url: 'http://127.0.0.1:21000', geventUrl: 'http://127.0.0.1:21001' });
    if (workers.kind !== 'proxy') throw new Error('not proxied');
    for (const path of ['/websocket', '/websocket?version=18.0-1', '//websocket', '/web/../websocket']) expect(targetOf(workers, path), path).to.equal('http://127.0.0.1:21001');
    for (const path of ['/web/login', '/websocketx', '/bus/websocket', undefined]) expect(targetOf(workers, path), String(path)).to.equal('http://127.0.0.1:21000');
    const threaded = routeFor({ ...row('running', { url: 'http://127.0.0.1:21000' }), gevent_url: null });
    if (threaded.kind !== 'proxy') throw new Error('not proxied');
    expect(targetOf(threaded, '/websocket')).to.equal('http://127.0.0.1:21000');
  });

  it('wakes nothing stopped, failed or destroyed, and knows no missing instance', () => {
    for (const status of ['stopped', 'failed', 'destroyed'] as const) expect(routeFor(row(status))).to.deep.equal({ kind: 'closed', status });
    expect(routeFor(undefined)).to.deep.equal({ kind: 'unknown' });
  });
});

describe('instance decider: RecordVisit', () => {
  const spec = deciderSpec(instanceDecider);
  const slug = 'acme-dev';
  const settings = { slug, name: 'dev', project: 'acme', stage: 'development' as const, erpVersion: '17.0' as const, edition: 'community' as const, modules: [], gitRepo: null, branch: 'main', source: { kind: 'empty' as const } };
  const ranJob = (jobId: string, kind: JobKind, status: 'running' | 'sleeping'): InstanceEvent[] => [{ type: 'InstanceJobSucceeded', data: { slug, jobId, kind, status } }];
  const running: InstanceEvent[] = [{ type: 'InstanceRequested', data: { ...settings, jobId: 'j1', plan: instancePlan('provision', false) } }, ...ranJob('j1', 'provision', 'running')];

  it('records a visit to a running instance, as its schema says', () => {
    const visited: InstanceEvent = { type: 'InstanceVisited', data: { slug } };
    spec.given(running).when({ type: 'RecordVisit' }).then([visited]);
    const validate = schemaValidator('events/InstanceVisited.v1.json');
    expect(validate(visited.data), describeErrors(validate)).to.equal(true);
  });

  it('records nothing for an instance that does not run, and refuses an unknown one', () => {
    const asleep: InstanceEvent[] = [...running, { type: 'InstanceActionRequested', data: { slug, action: 'sleep', jobId: 'j2', reason: 'idle', plan: instancePlan('sleep', true) } }, ...ranJob('j2', 'sleep', 'sleeping')];
    spec.given(asleep).when({ type: 'RecordVisit' }).thenNothingHappens();
    spec.given([]).when({ type: 'RecordVisit' }).thenThrows(DomainError, /no such instance/);
  });
});

describe('ERP router activity', () => {
  /** A store that holds no instance, or fails every read. */
  const store = (fail: boolean) => ({ readStream: async () => (fail ? Promise.reject(new Error('store down')) : { events: [], version: 0 }) }) as never;
  const warnings: unknown[] = [];
  const logger = { info: () => {}, warn: (...args: unknown[]) => warnings.push(args) } as never;

  it('takes a refused wake (the instance changed meanwhile) as no error, and passes a failing store on', async () => {
    await erpActivity(store(false), logger).wake('acme-gone');
    let failure: unknown;
    await erpActivity(store(true), logger).wake('acme-dev').catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('store down');
  });

  it('logs a visit it could not record and tries again at the next request, not before', async () => {
    let reads = 0;
    const counting = { readStream: async () => ((reads += 1), Promise.reject(new Error('store down'))) } as never;
    warnings.length = 0;
    const activity = erpActivity(counting, logger, { visitEveryMs: 60_000 });
    activity.visit('acme-dev');
    await waitUntil(() => warnings.length === 1, 'the failed visit to be logged');
    activity.visit('acme-dev');
    await waitUntil(() => warnings.length === 2, 'the retried visit to be logged');
    expect(reads).to.equal(2);
  });

  it('records one visit per instance per interval', async () => {
    let reads = 0;
    let clock = 0;
    // Reads that never answer: no visit ends, so only the throttle decides what is tried.
    const counting = { readStream: () => ((reads += 1), new Promise(() => {})) } as never;
    const activity = erpActivity(counting, logger, { visitEveryMs: 1000, now: () => clock });
    activity.visit('acme-a');
    activity.visit('acme-a');
    activity.visit('acme-b');
    clock = 999;
    activity.visit('acme-a');
    clock = 1000;
    activity.visit('acme-a');
    await waitUntil(() => reads >= 3, 'three visits tried');
    for (let tick = 0; tick < 5; tick += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(reads).to.equal(3);
  });
});

describe('ERP router: the database manager stays closed', () => {
  it('finds /web/database/* however the path is spelled', () => {
    for (const url of [
      '/web/database/backup',
      '/web/database/drop?x=1',
      '/web/database/manager',
      '/web/database',
      '/web/database/',
      '/web/database/list',
      '//web/database/backup',
      '/web//database///drop',
      '/web/database/../database/backup',
      '/web/x/../database/drop',
      '/./web/./database/backup',
      '/web%2Fdatabase%2Fbackup',
      '/web%2fdatabase/drop',
      '/web/%64atabase/backup',
      '/web%252Fdatabase%252Fbackup',
      '/%2e%2e/web/database/backup',
      '/web\\database\\backup',
      '/WEB/DATABASE/BACKUP',
      '/Web/Database/manager',
      '/fr_BE/web/database/manager',
      '/sr@latin/web/database/backup',
      'http://acme.localhost/web/database/backup',
      'web/database/backup',
      '/web/database/backup#x',
    ]) {
      expect(isDatabaseManagerPath(url), url).to.equal(true);
    }
  });

  it('lets the rest of the ERP through', () => {
    for (const url of ['/', '/web', '/web/login', '/web/health', '/web/databases', '/web/database-x', '/odoo/action-1', '/web/login?redirect=/web/database/manager', '/a/b/web/database/backup', '/websocket', '/web%', '/web/%zz']) {
      expect(isDatabaseManagerPath(url), url).to.equal(false);
    }
  });
});
