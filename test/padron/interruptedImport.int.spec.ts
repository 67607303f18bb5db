import { spawn } from 'node:child_process';
import { expect } from 'chai';
import type { PadronService } from '#services/padron/http/server.ts';
import { waitUntil } from '#test/support/wait.ts';
import { createPadronDatabase, startTestService, type PadronDatabase } from './support/padronDatabase.ts';
import { fileFolder, monthPeriod, rgsLines, validCuit, writeLines } from './support/padronFiles.ts';

/**
 * The import is killed (SIGKILL, no chance to clean up) in the middle of its COPY: the previous
 * load must keep answering, nothing of the killed one may be visible, and the next import must
 * finish the job.
 */
describe('padrón import killed mid-COPY', function () {
  this.timeout(120_000);
  let db: PadronDatabase;
  let service: PadronService;
  const folder = fileFolder();
  const period = monthPeriod();
  const cuit = validCuit(2012345678);

  before(async () => {
    db = await createPadronDatabase('padron_kill');
    await db.load({ state: 'B', path: writeLines(folder, 'PadronRGSPer-previous.TXT', rgsLines('P', period, [{ cuit, rate: '1,00' }])) });
    service = await startTestService(db.pool);
  });
  after(async () => {
    await service.close();
    await db.close();
  });

  const aliquotOf = async (target: PadronService) => {
    const body = (await (await fetch(`${target.url}/padron/cuit/${cuit}?state=B&regime=P`)).json()) as { results: Array<{ aliquot: number }> };
    return body.results.map((result) => result.aliquot);
  };
  const copying = async () => {
    const { rows } = await db.pool.query<{ tuples: number }>('select tuples_processed::int as tuples from pg_stat_progress_copy where datname = current_database()');
    return (rows[0]?.tuples ?? 0) > 0;
  };
  const importers = async () =>
    (await db.pool.query(`select 1 from pg_stat_activity where datname = current_database() and application_name = 'forja-padron-import'`)).rowCount ?? 0;

  it('leaves the previous load serving, and the next import marks the killed one failed', async () => {
    const rows = Array.from({ length: 400_000 }, (_, i) => ({ cuit: i === 0 ? cuit : validCuit(2100000000 + i * 3), rate: '9,00' }));
    const big = writeLines(folder, 'PadronRGSPer-big.TXT', rgsLines('P', period, rows));
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/padron/cli.ts', 'import', '--state', 'B', '--file', big], {
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await waitUntil(copying, 'the import to be in the middle of its COPY', 60_000);
    child.kill('SIGKILL');
    expect(await exited).to.equal('SIGKILL');

    expect(await aliquotOf(service)).to.deep.equal([1]);
    const { rows: loads } = await db.pool.query<{ load_id: number; status: string }>(`select load_id, status from padron.loads where state = 'B' order by load_id`);
    expect(loads.map((load) => load.status)).to.deep.equal(['published', 'loading']);
    const killed = loads[1]?.load_id ?? 0;
    expect((await db.pool.query('select 1 from pg_class where oid = to_regclass($1)', [`padron.rates_${killed}`])).rowCount, 'no trace of its rows').to.equal(0);
    await service.registry.refresh();
    expect(await aliquotOf(service)).to.deep.equal([1]);
    const fresh = await startTestService(db.pool);
    try {
      expect(await aliquotOf(fresh), 'a service starting from the database sees the previous load').to.deep.equal([1]);
    } finally {
      await fresh.close();
    }

    await waitUntil(async () => (await importers()) === 0, 'PostgreSQL to notice the importer is gone');
    const outcome = await db.importFile({ state: 'B', path: big });
    expect(outcome.status === 'loaded' && outcome.abandonedLoads).to.deep.equal([killed]);
    expect(outcome.status === 'loaded' && outcome.load.rowsLoaded).to.equal(400_000);
    await service.registry.refresh();
    expect(await aliquotOf(service)).to.deep.equal([9]);
  });
});
