import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { userIdFor } from '#services/control-plane/identity/user.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream } from '#services/migrations/domain/migration.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { systemMetadata } from '#shared/decider/systemMetadata.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const validHistory = schemaValidator('api/MigrationHistoryOut.v1.json');
const validAsOf = schemaValidator('api/MigrationStateAsOfOut.v1.json');

interface Entry {
  version: number;
  type: string;
  actor: string;
  host: string | null;
  run: number | null;
  highlight: string | null;
  summary: string;
  caused_by_version: number | null;
  hash: string;
}
interface History {
  deleted: boolean;
  events_total: number;
  head_hash: string;
  choices: { runs: number[]; actors: string[]; types: string[] };
  events: Entry[];
}

/** `npm run audit -- verify FILE` as an auditor runs it: its own process, nothing but the file. */
function verify(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'audit', '--', 'verify', file], { cwd: REPO, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('migration history API (the audit trail)', function () {
  this.timeout(120_000);
  let platform: TestPlatform;
  let dir: string;

  before(async () => {
    platform = await startTestPlatform();
    await platform.createUser('dev@example.com', 'developer');
    await platform.createUser('viewer@example.com', 'viewer');
    await platform.createUser('admin@example.com', 'admin');
    dir = await mkdtemp(join(tmpdir(), 'forja-audit-'));
  });
  after(() => platform?.stop());

  const call = (path: string, as = 'viewer@example.com', init: RequestInit = {}) =>
    fetch(`${platform.urls.controlPlane}${path}`, { ...init, headers: { authorization: basic(as), ...(init.body ? { 'content-type': 'application/json' } : {}) } });
  const post = async (path: string, body: unknown = {}, method = 'POST') => {
    const res = await call(path, 'dev@example.com', { method, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).to.be.below(300);
    return res;
  };
  const history = async (slug: string, query = '', as = 'viewer@example.com') => {
    const res = await call(`/api/v1/migrations/${slug}/history${query}`, as);
    expect(res.status, await res.clone().text()).to.equal(200);
    const body = (await res.json()) as History;
    expect(validHistory(body), describeErrors(validHistory)).to.equal(true);
    return body;
  };
  const internal = (path: string, as: string) => {
    const { serviceToken } = resolvePlatformSecrets(platform.config);
    return fetch(`${platform.urls.controlPlane}${path}`, { headers: { authorization: `Bearer ${serviceToken}`, 'x-forja-actor': userIdFor(as) } });
  };

  /** Created with a contract and a pull URL carrying a password, run, reported on by an executor, stopped. */
  async function stoppedMigration(name: string): Promise<string> {
    const created = (await (await post('/api/v1/migrations', { name, origin: '16.0', destination: '17.0', pull_url: 'https://ana:s3cret@files.example.com/acme.dump', contract: 'M1234-5678-ABCD' })).json()) as { slug: string };
    await (await call(`/api/v1/migrations/${created.slug}`, 'dev@example.com', { method: 'PATCH', body: JSON.stringify({ contract: 'M9999-0000-WXYZ' }) })).arrayBuffer();
    await post(`/api/v1/migrations/${created.slug}/run`);
    // What the executor appends: a system event naming the host that decided it.
    const stream = migrationStream(created.slug);
    const { state, lastEvent } = await aggregateStream(platform.infra.store, migrationDecider, stream);
    const jobId = state.status === 'none' ? '' : state.runs[0]!.job.jobId;
    const firstStep = state.status === 'none' ? '' : state.runs[0]!.job.plan[0]!.id;
    await handleCommand(platform.infra.store, migrationDecider, stream, { type: 'StartStep', jobId, step: firstStep, attemptId: 'a1', executor: 'exec-7:42' }, {
      metadata: { ...systemMetadata({ via: 'executor', causedBy: lastEvent! }), host: 'exec-7' },
    });
    await post(`/api/v1/migrations/${created.slug}/stop`);
    return created.slug;
  }

  it('lists every event of the stream in order, with who did it, what, and what stands out', async () => {
    const slug = await stoppedMigration('History One');
    const body = await history(slug);
    expect(body.deleted).to.equal(false);
    expect(body.events.map((event) => event.type)).to.deep.equal([
      'MigrationCreated',
      'MigrationEdited',
      'MigrationRunRequested',
      'MigrationStepStarted',
      'MigrationStepInterrupted',
      'MigrationJobCancelled',
      'MigrationStopped',
    ]);
    expect(body.events.map((event) => event.version)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    expect(body.events[0]).to.include({ actor: 'dev@example.com', highlight: null, run: null });
    expect(body.events[3]).to.include({ actor: 'system', host: 'exec-7', run: 1, caused_by_version: 3 });
    expect(body.events[5]).to.include({ summary: 'Run 1 cancelled (stop)', highlight: null });
    expect(body.events[6]).to.include({ highlight: 'stop', summary: 'Stopped: back to draft, run 1 dropped' });
    expect(body.head_hash).to.equal(body.events[6]!.hash);
    expect(body.choices).to.deep.equal({ runs: [1], actors: ['dev@example.com', 'system'], types: [...new Set(body.events.map((event) => event.type))].sort() });
    const text = JSON.stringify(body);
    expect(text).to.not.include('s3cret');
    expect(text).to.not.include('M1234-5678');
  });

  it('filters by run, actor and type, and refuses a bad filter with 422 naming it', async () => {
    const slug = await stoppedMigration('History Filters');
    expect((await history(slug, '?run=1')).events.map((event) => event.version)).to.deep.equal([3, 4, 5, 6]);
    expect((await history(slug, '?actor=system')).events.map((event) => event.version)).to.deep.equal([4]);
    expect((await history(slug, '?actor=dev%40example.com&type=MigrationEdited')).events.map((event) => event.type)).to.deep.equal(['MigrationEdited']);
    expect((await history(slug, '?run=7')).events).to.deep.equal([]);
    const refused = await call(`/api/v1/migrations/${slug}/history?run=first&type=no%20such`);
    expect(refused.status).to.equal(422);
    const { detail } = (await refused.json()) as { detail: Array<{ loc: string[] }> };
    expect(detail.map((issue) => issue.loc.join('.'))).to.deep.equal(['query.run', 'query.type']);
  });

  it('serves the migration as of one event, folded from the stream, with its neighbours', async () => {
    const slug = await stoppedMigration('History As Of');
    const at = async (position: number) => {
      const res = await call(`/api/v1/migrations/${slug}/history/${position}`);
      expect(res.status, await res.clone().text()).to.equal(200);
      const body = (await res.json()) as { previous: number | null; next: number | null; event: Entry; state: { status: string; contract: string; runs: Array<{ status: string; steps: Array<{ status: string }> }> } };
      expect(validAsOf(body), describeErrors(validAsOf)).to.equal(true);
      return body;
    };
    const first = await at(1);
    expect(first).to.deep.include({ previous: null, next: 2 });
    expect(first.state).to.include({ status: 'draft', contract: '…ABCD' });
    const started = await at(4);
    expect(started.state.status).to.equal('running');
    expect(started.state.runs[0]!.steps[0]!.status).to.equal('running');
    const last = await at(7);
    expect(last).to.deep.include({ previous: 6, next: null });
    expect(last.state).to.include({ status: 'draft', contract: '…WXYZ' });
    expect(last.state.runs).to.deep.equal([]);
    expect((await call(`/api/v1/migrations/${slug}/history/8`)).status).to.equal(404);
    expect((await call(`/api/v1/migrations/${slug}/history/0`)).status).to.equal(422);
    expect((await call('/api/v1/migrations/no-such-migration/history')).status).to.equal(404);
  });

  it('exports hash-chained JSON lines that `npm run audit -- verify` accepts, and names a tampered line', async () => {
    const slug = await stoppedMigration('History Export');
    const res = await call(`/api/v1/migrations/${slug}/history.jsonl`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/x-ndjson/);
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="${slug}-history.jsonl"`);
    const text = await res.text();
    expect(res.headers.get('x-chain-head')).to.equal((await history(slug)).head_hash);
    expect(text).to.not.include('s3cret');
    const file = join(dir, `${slug}.jsonl`);
    await writeFile(file, text);
    const ok = await verify(file);
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.stdout).to.include(`OK, 7 events of migration-${slug}, chain intact`);
    expect(ok.stdout).to.include(`head hash: ${res.headers.get('x-chain-head')}`);
    expect(ok.stdout).to.include('status: draft');

    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[2] = lines[2]!.replace('"kind":"run"', '"kind":"run-anyway"');
    const tampered = join(dir, `${slug}-tampered.jsonl`);
    await writeFile(tampered, lines.join('\n'));
    const refused = await verify(tampered);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(`${tampered}: line 3: hash mismatch`);
    expect(refused.stdout).to.equal('');
    const usage = await verify('');
    expect(usage.code).to.equal(2);
  });

  it('keeps a deleted migration’s history for admins only: the read models forget it, its events remain', async () => {
    const slug = await stoppedMigration('History Deleted');
    await post(`/api/v1/migrations/${slug}`, { confirm_name: 'History Deleted' }, 'DELETE');
    expect((await call(`/api/v1/migrations/${slug}`)).status).to.equal(404);
    const kept = await history(slug, '', 'admin@example.com');
    expect(kept.deleted).to.equal(true);
    expect(kept.events.at(-1)).to.include({ type: 'MigrationDeleted', highlight: 'delete' });
    expect((await call(`/api/v1/migrations/${slug}/history/${kept.events_total}`, 'admin@example.com')).status).to.equal(200);
    expect((await call(`/api/v1/migrations/${slug}/history.jsonl`, 'admin@example.com')).status).to.equal(200);
    for (const who of ['dev@example.com', 'viewer@example.com']) {
      for (const path of ['history', 'history.jsonl', 'history/1']) expect((await call(`/api/v1/migrations/${slug}/${path}`, who)).status, `${who} ${path}`).to.equal(404);
    }
    expect((await internal(`/internal/migrations/${slug}/history`, 'viewer@example.com')).status).to.equal(404);
    expect((await internal(`/internal/migrations/${slug}/history`, 'admin@example.com')).status).to.equal(200);
  });
});
