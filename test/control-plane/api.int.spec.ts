import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

describe('control-plane JSON API', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let api: string;

  before(async () => {
    platform = await startTestPlatform();
    api = platform.urls.controlPlane!;
    await platform.createUser('admin@example.com', 'admin');
    await platform.createUser('dev@example.com', 'developer');
    await platform.createUser('viewer@example.com', 'viewer');
    await platform.createUser('gone@example.com', 'admin', undefined, false);
  });
  after(() => platform?.stop());

  const call = (path: string, init: RequestInit & { as?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (init.as) headers.set('authorization', basic(init.as));
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${api}${path}`, { ...init, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  };

  describe('authentication', () => {
    it('answers 401 with a Basic challenge without credentials', async () => {
      const res = await call('/api/v1/projects');
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal('Basic realm="forja"');
      expect(await res.json()).to.have.property('detail').that.matches(/HTTP Basic/);
    });

    it('answers 401 to a wrong password and to an unknown user', async () => {
      expect((await call('/api/v1/me', { headers: { authorization: basic('admin@example.com', 'nope nope') } })).status).to.equal(401);
      expect((await call('/api/v1/me', { as: 'nobody@example.com' })).status).to.equal(401);
    });

    it('answers 401 to a deactivated user with the right password', async () => {
      expect((await call('/api/v1/me', { as: 'gone@example.com' })).status).to.equal(401);
    });

    it('accepts the e-mail in any case and says who it is', async () => {
      const res = await call('/api/v1/me', { as: 'Dev@Example.com' });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.include({ email: 'dev@example.com', role: 'developer', active: true });
    });

    it('answers 403 to a role too weak', async () => {
      const res = await call('/api/v1/projects', { method: 'POST', as: 'viewer@example.com', json: { name: 'Nope' } });
      expect(res.status).to.equal(403);
      expect(await res.json()).to.deep.equal({ detail: 'this needs the developer role; you are viewer' });
    });
  });

  describe('projects', () => {
    it('creates a project and shows it at once (read-your-writes)', async () => {
      const res = await call('/api/v1/projects', { method: 'POST', as: 'dev@example.com', json: { name: '  Ñandú   Sistemas ' } });
      expect(res.status).to.equal(201);
      const project = (await res.json()) as Record<string, string>;
      expect(project).to.include({ slug: 'nandu-sistemas', name: 'Ñandú Sistemas', git_repo: null });
      expect(project['webhook_path']).to.match(/^\/webhooks\/git\/nandu-sistemas\/[0-9a-f]{64}$/);
      expect(res.headers.get('location')).to.equal('/api/v1/projects/nandu-sistemas');
      const list = (await (await call('/api/v1/projects?q=ñandú', { as: 'viewer@example.com' })).json()) as Array<Record<string, string>>;
      expect(list.map((p) => p.slug)).to.deep.equal(['nandu-sistemas']);
      expect(list[0]).to.not.have.property('webhook_path');
    });

    it('refuses the same name again with 409, and gives a colliding name the next slug', async () => {
      const again = await call('/api/v1/projects', { method: 'POST', as: 'dev@example.com', json: { name: 'ñandú sistemas' } });
      expect(again.status).to.equal(409);
      expect(await again.json()).to.deep.equal({ detail: 'a project named Ñandú Sistemas already exists' });
      const collision = await call('/api/v1/projects', { method: 'POST', as: 'dev@example.com', json: { name: 'Nandu-Sistemas' } });
      expect(((await collision.json()) as { slug: string }).slug).to.equal('nandu-sistemas-2');
    });

    it('sets a repository and refuses a dangerous one with 422', async () => {
      const ok = await call('/api/v1/projects/nandu-sistemas/repository', { method: 'PUT', as: 'dev@example.com', json: { git_repo: 'https://git.example.com/nandu/erp.git' } });
      expect(ok.status).to.equal(200);
      expect(await ok.json()).to.include({ git_repo: 'https://git.example.com/nandu/erp.git' });
      const bad = await call('/api/v1/projects/nandu-sistemas/repository', { method: 'PUT', as: 'dev@example.com', json: { git_repo: 'https://h/x.git;reboot' } });
      expect(bad.status).to.equal(422);
      expect(await bad.json()).to.deep.equal({ detail: [{ loc: ['body', 'git_repo'], msg: 'the URL contains spaces or shell metacharacters', type: 'value_error.domain' }] });
    });

    it('refuses a repository URL with a password, for a project and for an instance, and keeps the old one (issue 10, item 13)', async () => {
      const why = 'put credentials in an SSH key, not in the URL: every viewer sees the repository URL';
      for (const gitRepo of ['ssh://deploy:s3cret@git.example.com/nandu/erp.git', 'https://deploy:s3cret@git.example.com/nandu/erp.git']) {
        const project = await call('/api/v1/projects/nandu-sistemas/repository', { method: 'PUT', as: 'dev@example.com', json: { git_repo: gitRepo } });
        expect(project.status, gitRepo).to.equal(422);
        expect(await project.json()).to.deep.equal({ detail: [{ loc: ['body', 'git_repo'], msg: why, type: 'value_error.domain' }] });
        const instance = await call('/api/v1/instances', { method: 'POST', as: 'dev@example.com', json: { name: 'Leaky', project: 'nandu-sistemas', erp_version: '17.0', git_repo: gitRepo } });
        expect(instance.status, gitRepo).to.equal(422);
        expect(await instance.json()).to.deep.equal({ detail: [{ loc: ['body', 'git_repo'], msg: why, type: 'value_error.domain' }] });
      }
      const shown = (await (await call('/api/v1/projects/nandu-sistemas', { as: 'viewer@example.com' })).json()) as { git_repo: string };
      expect(shown.git_repo).to.equal('https://git.example.com/nandu/erp.git');
      const userOnly = await call('/api/v1/projects/nandu-sistemas/repository', { method: 'PUT', as: 'dev@example.com', json: { git_repo: 'ssh://git@git.example.com/nandu/erp.git' } });
      expect(userOnly.status, 'a user name alone is no secret').to.equal(200);
    });

    it('refuses a repository git may not read, for a project and for an instance, with 422 naming git_repo (issue 10, item 8)', async () => {
      // Forja's own checkout, unless it lies under the temporary folder the test platform lists (a CI clone may): then another host folder.
      const checkout = resolve(import.meta.dirname, '../..');
      const forja = checkout.startsWith(`${resolve(tmpdir())}/`) ? '/usr/lib' : checkout;
      for (const [gitRepo, why] of [
        [`file://${forja}`, `${forja} is outside the folders local repositories may come from (FORJA_GIT_FILE_ROOTS)`],
        [`file://${tmpdir()}/../${forja}`, `${forja} is outside the folders local repositories may come from (FORJA_GIT_FILE_ROOTS)`],
        ['ssh://git@127.0.0.1:6379/x.git', 'git may not reach 127.0.0.1: it is a loopback address (this machine); an operator can allow it with FORJA_GIT_ALLOW_HOSTS'],
        ['https://0x7f.1:8080/x.git', 'git may not reach 0x7f.1: it is a loopback address (this machine); an operator can allow it with FORJA_GIT_ALLOW_HOSTS'],
        ['https://2130706433/x.git', 'git may not reach 2130706433: it is a loopback address (this machine); an operator can allow it with FORJA_GIT_ALLOW_HOSTS'],
        ['git@localhost:x.git', 'git may not reach localhost: it is this machine; an operator can allow it with FORJA_GIT_ALLOW_HOSTS'],
        ['ssh://git@10.0.0.7/x.git', 'git may not reach 10.0.0.7: it is a private address; an operator can allow it with FORJA_GIT_ALLOW_HOSTS'],
        ['https://169.254.169.254/latest.git', 'git may not reach 169.254.169.254: it is a link-local address; an operator can allow it with FORJA_GIT_ALLOW_HOSTS'],
      ] as const) {
        const project = await call('/api/v1/projects/nandu-sistemas/repository', { method: 'PUT', as: 'dev@example.com', json: { git_repo: gitRepo } });
        expect(project.status, gitRepo).to.equal(422);
        expect(await project.json(), gitRepo).to.deep.equal({ detail: [{ loc: ['body', 'git_repo'], msg: why, type: 'value_error.domain' }] });
        const instance = await call('/api/v1/instances', { method: 'POST', as: 'dev@example.com', json: { name: 'Probe', project: 'nandu-sistemas', erp_version: '17.0', git_repo: gitRepo } });
        expect(instance.status, gitRepo).to.equal(422);
        expect(await instance.json(), gitRepo).to.deep.equal({ detail: [{ loc: ['body', 'git_repo'], msg: why, type: 'value_error.domain' }] });
      }
      const inTemp = await call('/api/v1/projects/nandu-sistemas/repository', { method: 'PUT', as: 'dev@example.com', json: { git_repo: `file://${tmpdir()}/forja-repos/erp.git` } });
      expect(inTemp.status, 'a folder FORJA_GIT_FILE_ROOTS lists').to.equal(200);
    });

    it('answers 404 for an unknown slug and 422 for a malformed one', async () => {
      const missing = await call('/api/v1/projects/no-such-thing', { as: 'viewer@example.com' });
      expect(missing.status).to.equal(404);
      expect(await missing.json()).to.deep.equal({ detail: 'no project no-such-thing' });
      const repoOfMissing = await call('/api/v1/projects/no-such-thing/repository', { method: 'PUT', as: 'dev@example.com', json: { git_repo: 'git@h:x.git' } });
      expect(repoOfMissing.status).to.equal(404);
      const malformed = await call('/api/v1/projects/Bad_Slug', { as: 'viewer@example.com' });
      expect(malformed.status).to.equal(422);
      expect(((await malformed.json()) as { detail: Array<{ loc: string[] }> }).detail[0]?.loc).to.deep.equal(['path', 'slug']);
    });
  });

  describe('instances', () => {
    it('refuses with 422 on name a slug kept for migrations, making no project for it (issue 24: instance mig-acme had migration acme’s database)', async () => {
      const res = await call('/api/v1/instances', { method: 'POST', as: 'dev@example.com', json: { name: 'Acme', project: 'Mig', erp_version: '17.0' } });
      expect(res.status).to.equal(422);
      const msg = "this instance's slug would be mig-acme, and slugs starting with 'mig-' are reserved: their databases (forja_mig_…) are the working databases of older migrations: choose another project or name";
      expect(await res.json()).to.deep.equal({ detail: [{ loc: ['body', 'name'], msg, type: 'value_error.domain' }] });
      expect((await call('/api/v1/projects/mig', { as: 'viewer@example.com' })).status).to.equal(404);
      const working = await call('/api/v1/instances', { method: 'POST', as: 'dev@example.com', json: { name: 'Acme 1', project: 'migrun', erp_version: '17.0' } });
      expect(working.status).to.equal(422);
      expect(JSON.stringify(await working.json())).to.include('reserved for the working instances of migrations');
    });
  });

  describe('request validation', () => {
    const post = (init: RequestInit) => call('/api/v1/projects', { method: 'POST', as: 'dev@example.com', ...init });

    it('maps schema errors to 422 with loc, msg and type', async () => {
      const res = await post({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: '', extra: 1 }) });
      expect(res.status).to.equal(422);
      expect(((await res.json()) as { detail: unknown[] }).detail).to.deep.include.members([
        { loc: ['body', 'extra'], msg: 'extra field not permitted', type: 'value_error.extra' },
        { loc: ['body', 'name'], msg: 'must NOT have fewer than 1 characters', type: 'value_error.minLength' },
      ]);
    });

    it('answers a malformed JSON body with 422, never 500', async () => {
      const res = await post({ headers: { 'content-type': 'application/json' }, body: '{"name": ' });
      expect(res.status).to.equal(422);
      expect(await res.json()).to.deep.equal({ detail: [{ loc: ['body'], msg: 'the body is not valid JSON', type: 'value_error.jsondecode' }] });
    });

    it('answers a body that is not JSON with 422', async () => {
      const res = await post({ headers: { 'content-type': 'text/plain' }, body: 'name=x' });
      expect(res.status).to.equal(422);
    });

    it('refuses a body over the size limit with 413', async () => {
      const res = await post({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x'.repeat(70_000) }) });
      expect(res.status).to.equal(413);
      expect(await res.json()).to.deep.equal({ detail: 'the body is larger than 64 kB' });
    });

    it('answers an unknown endpoint with a JSON 404', async () => {
      const res = await call('/api/v1/nothing', { as: 'viewer@example.com' });
      expect(res.status).to.equal(404);
      expect(await res.json()).to.have.property('detail');
    });
  });

  describe('operations', () => {
    it('serves /health, exposing nothing else', async () => {
      const res = await call('/health');
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ status: 'ok' });
    });

    it('serves Prometheus metrics: process, HTTP durations by route, projector lag, append durations', async () => {
      const text = await (await call('/metrics')).text();
      expect(text).to.match(/^forja_process_cpu_seconds_total/m);
      expect(text).to.match(/forja_http_request_duration_seconds_bucket\{le="[^"]+",method="POST",route="\/api\/v1\/projects",status="201"\}/);
      expect(text).to.match(/forja_projector_lag_events\{runner="project_list"\} \d+/);
      expect(text).to.match(/forja_event_store_append_seconds_count [1-9]/);
    });

    it('documents every JSON endpoint in /openapi.json and renders it offline at /docs', async () => {
      const doc = (await (await call('/openapi.json')).json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
      expect(doc.openapi).to.equal('3.1.0');
      const { authorizationTable } = await import('#shared/auth/authorizationTable.ts');
      const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
      const routes = authorizationTable
        .filter((rule) => rule.process === 'control-plane' && !['/openapi.json', '/docs', '/docs/assets/:file'].includes(rule.path))
        .map((rule) => `${rule.method} ${rule.path.replace(/:(\w+)/g, '{$1}')}`);
      expect(documented.sort()).to.deep.equal(routes.sort());
      const page = await (await call('/docs')).text();
      expect(page).to.include('/docs/assets/swagger-ui-bundle.js');
      expect((await call('/docs/assets/swagger-ui-bundle.js')).status).to.equal(200);
      expect((await call('/docs/assets/init.js')).status).to.equal(200);
      expect((await call('/docs/assets/..%2Fpackage.json')).status).to.equal(404);
    });
  });
});
