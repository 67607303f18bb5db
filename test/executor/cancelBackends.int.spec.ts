import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { cancelBackendsOf, cancellingOnAbort } from '#services/executor/database/cancelBackends.ts';
import { testCluster } from '#test/support/postgres.ts';
import { waitUntil } from '#test/support/wait.ts';

/** Cancelling a job's statements on the server by the application_name its sessions carry. */
describe('executor: cancelling a job’s database sessions', function () {
  this.timeout(20_000);
  let adminUrl: string;
  const opened: pg.Client[] = [];

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
  });
  afterEach(async () => {
    for (const client of opened.splice(0)) await client.end().catch(() => undefined);
  });

  const jobName = () => `forja-job-${randomBytes(4).toString('hex')}`;

  async function session(applicationName: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: adminUrl, application_name: applicationName });
    client.on('error', () => undefined);
    await client.connect();
    opened.push(client);
    return client;
  }

  /** The sessions tagged `applicationName`, with what each runs. */
  async function sessionsOf(applicationName: string): Promise<Array<{ state: string; query: string }>> {
    const admin = await session('test-observer');
    const { rows } = await admin.query<{ state: string; query: string }>('select state, query from pg_stat_activity where application_name = $1', [applicationName]);
    await admin.end();
    return rows;
  }
  const sleeping = async (applicationName: string) => (await sessionsOf(applicationName)).some((row) => row.state === 'active' && row.query.includes('pg_sleep'));

  /** `select pg_sleep(60)` on a session tagged `applicationName`, ended once the statement fails, as the executor's sessions are. */
  async function longStatement(applicationName: string): Promise<{ done: Promise<unknown> }> {
    const client = await session(applicationName);
    const done = client.query('select pg_sleep(60)').finally(() => client.end().catch(() => undefined));
    done.catch(() => undefined);
    await waitUntil(() => sleeping(applicationName), 'the statement to run');
    return { done };
  }

  it('cancels the running statements of the name, terminates its sessions still there after the grace, and leaves other names alone', async () => {
    const [job, other] = [jobName(), jobName()];
    const busy = await longStatement(job);
    await session(job); // idle: a cancel does not end it
    const bystander = await longStatement(other);

    expect(await cancelBackendsOf(adminUrl, job, { graceMs: 300 })).to.deep.equal({ cancelled: 2, terminated: 1 });
    const error = await busy.done.then(() => null, (reason: unknown) => reason);
    expect(error).to.have.property('code', '57014'); // query_canceled
    expect(await sessionsOf(job)).to.deep.equal([]);
    expect(await sleeping(other), 'another job’s statement').to.equal(true);
    await cancelBackendsOf(adminUrl, other, { graceMs: 300 });
    await bystander.done.catch(() => undefined);
  });

  it('finds nothing to do for a name no session carries', async () => {
    expect(await cancelBackendsOf(adminUrl, jobName(), { graceMs: 100 })).to.deep.equal({ cancelled: 0, terminated: 0 });
  });

  it('on abort, cancels the work’s statement and rejects promptly with the abort’s reason, leaving no session of the job', async () => {
    const job = jobName();
    const abort = new AbortController();
    const lines: string[] = [];
    const client = await session(job);
    const run = cancellingOnAbort('sleeping', () => client.query('select pg_sleep(60)').finally(() => client.end()), {
      signal: abort.signal,
      adminUrl,
      applicationName: job,
      report: (line) => lines.push(line),
    });
    await waitUntil(() => sleeping(job), 'the statement to run');
    const started = Date.now();
    const reason = new Error('job cancelled by the test');
    abort.abort(reason);
    const error = await run.then(() => null, (rejection: unknown) => rejection);
    expect(error).to.equal(reason);
    expect(Date.now() - started).to.be.below(2_000);
    expect(await sessionsOf(job)).to.deep.equal([]);
    expect(lines).to.deep.equal([`aborted: cancelled the statements of 1 session(s) of ${job}`]);
  });

  it('still rejects with the abort’s reason when the server cannot be reached to cancel, and says so', async () => {
    const abort = new AbortController();
    const lines: string[] = [];
    const run = cancellingOnAbort('hanging', () => new Promise<never>(() => undefined), {
      signal: abort.signal,
      adminUrl: 'postgres://nobody:secret@127.0.0.1:1/postgres',
      applicationName: jobName(),
      report: (line) => lines.push(line),
    });
    abort.abort();
    const error = await run.then(() => null, (rejection: unknown) => rejection);
    expect(error).to.have.property('name', 'AbortError');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^aborted, but cannot cancel the sessions of forja-job-\w+: .*ECONNREFUSED/);
  });

  it('runs nothing once the signal has fired, and passes the work’s own failures on', async () => {
    let ran = false;
    const options = { adminUrl, applicationName: jobName(), report: () => undefined };
    const error = await cancellingOnAbort('late', async () => void (ran = true), { ...options, signal: AbortSignal.abort() }).then(() => null, (rejection: unknown) => rejection);
    expect(error).to.have.property('name', 'AbortError');
    expect(ran).to.equal(false);
    const failure = new Error('syntax error');
    const passed = await cancellingOnAbort('failing', () => Promise.reject(failure), { ...options, signal: new AbortController().signal }).then(() => null, (rejection: unknown) => rejection);
    expect(passed).to.equal(failure);
  });
});
