import { expect } from 'chai';
import { authorizationTable } from '#shared/auth/authorizationTable.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { createBareRepo } from '#test/support/bareRepo.ts';
import { openApiAnswers, type OpenApiDocument } from '#test/support/openApiAnswers.ts';
import { basic, PASSWORD, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { USERS } from '#test/support/webPlatform.ts';
import { dayOfCalls, type Caller } from './openApiDay.ts';

/** What a path parameter is when a test only needs the route to be reached. */
const ANY: Record<string, string> = { slug: 'no-such-record', project_slug: 'no-such-record', token: 'f'.repeat(64), number: '7', artifact_id: '7', position: '99', flavor: 'community', stem: '16.0-17.0', key_id: '999' };

/**
 * The control-plane's live answers against its own /openapi.json: every status it answers is one
 * the operation lists, and every JSON body validates against that answer's schema. Sweeps reach
 * every operation of the document (without credentials, as a role too weak, with malformed JSON,
 * about records that do not exist), then a day of ordinary calls answers with success.
 */
describe('control-plane: live answers against its OpenAPI document', function () {
  this.timeout(120_000);
  let platform: TestPlatform;
  let document: OpenApiDocument;
  let answers: ReturnType<typeof openApiAnswers>;
  let caller: Caller;
  const problems: string[] = [];
  const operations = () => Object.entries(document.paths).flatMap(([path, byMethod]) => Object.keys(byMethod).map((method) => ({ method: method.toUpperCase(), path })));
  const ruleOf = (method: string, path: string) => authorizationTable.find((rule) => rule.process === 'control-plane' && rule.method === method && rule.path === path.replace(/\{(\w+)\}/g, ':$1'));

  before(async () => {
    platform = await startTestPlatform();
    await Promise.all([platform.createUser(USERS.viewer, 'viewer'), platform.createUser(USERS.developer, 'developer'), platform.createUser(USERS.admin, 'admin')]);
    const base = platform.urls['controlPlane']!;
    document = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDocument;
    answers = openApiAnswers(document);
    const serviceToken = resolvePlatformSecrets(platform.config).serviceToken;
    const idOf = async (email: string) => {
      const response = await fetch(`${base}/internal/auth/verify`, { method: 'POST', headers: { authorization: `Bearer ${serviceToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
      return ((await response.json()) as { user_id: string }).user_id;
    };
    const actors = { viewer: await idOf(USERS.viewer), developer: await idOf(USERS.developer), admin: await idOf(USERS.admin) };
    caller = async (method, template, options = {}) => {
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? ANY[name] ?? 'x'));
      const headers: Record<string, string> = { ...options.headers };
      if (options.as) headers['authorization'] = basic(USERS[options.as]);
      if (options.actor) Object.assign(headers, { authorization: `Bearer ${serviceToken}`, 'x-forja-actor': actors[options.actor] });
      const body = method === 'GET' ? undefined : (options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json)));
      if (body !== undefined) headers['content-type'] ??= 'application/json';
      const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(60_000) });
      const answer = { status: response.status, contentType: response.headers.get('content-type') ?? '', body: Buffer.from(await response.arrayBuffer()).toString('latin1') };
      problems.push(...answers.problems(method, template, answer));
      return { status: answer.status, json: () => JSON.parse(answer.body) as Record<string, unknown> };
    };
  });
  after(() => platform?.stop());
  beforeEach(() => void problems.splice(0));

  it('answers 401 to every operation behind credentials when none are given', async () => {
    const statuses = [];
    for (const { method, path } of operations()) if (ruleOf(method, path)?.access !== 'public' && ruleOf(method, path)?.access !== 'hook') statuses.push(`${method} ${path} ${(await caller(method, path)).status}`);
    expect(problems).to.deep.equal([]);
    expect(statuses.filter((line) => !line.endsWith(' 401'))).to.deep.equal([]);
  });

  it('answers 403 to every operation that needs more than a viewer, asked by one', async () => {
    const statuses = [];
    for (const { method, path } of operations()) {
      const rule = ruleOf(method, path);
      if (rule?.access === 'developer' || rule?.access === 'admin') statuses.push(`${method} ${path} ${(await caller(method, path, { as: 'viewer', json: {} })).status}`);
      if (rule?.access === 'service' && (rule.actor === 'developer' || rule.actor === 'admin')) statuses.push(`${method} ${path} ${(await caller(method, path, { actor: 'viewer', json: {} })).status}`);
    }
    expect(problems).to.deep.equal([]);
    expect(statuses.filter((line) => !line.endsWith(' 403'))).to.deep.equal([]);
  });

  it('answers 422 to malformed JSON wherever a body is read', async () => {
    const statuses = [];
    for (const { method, path } of operations()) {
      const operation = document.paths[path]![method.toLowerCase()] as { requestBody?: unknown };
      if (operation.requestBody) statuses.push(`${method} ${path} ${(await caller(method, path, { raw: '{"name": ', ...(path.startsWith('/internal') ? { actor: 'admin' } : { as: 'admin' }) })).status}`);
    }
    expect(problems).to.deep.equal([]);
    expect(statuses.filter((line) => !line.endsWith(' 422'))).to.deep.equal([]);
  });

  it('answers as documented about records that do not exist', async () => {
    for (const { method, path } of operations()) {
      if (!path.includes('{') || ruleOf(method, path)?.access === 'hook') continue;
      await caller(method, path, { json: {}, ...(path.startsWith('/internal') ? { actor: 'admin' } : { as: 'admin' }) });
    }
    await caller('POST', '/webhooks/git/{project_slug}/{token}', { json: { ref: 'refs/heads/main' }, headers: { 'x-github-event': 'push' } });
    expect(problems).to.deep.equal([]);
  });

  it('answers a day of ordinary calls with success, as documented', async () => {
    const repo = await createBareRepo('openapi-answers');
    const unexpected = await dayOfCalls(caller, repo.url);
    expect(problems).to.deep.equal([]);
    expect(unexpected, 'calls that did not answer as the day expects').to.deep.equal([]);
  });

  it('held an answer of every operation of the document', () => {
    expect(answers.unanswered()).to.deep.equal([]);
  });
});
