import { expect } from 'chai';
import { createPadronDatabase, startTestService, type PadronDatabase } from './support/padronDatabase.ts';
import { agipLines, fileFolder, monthPeriod, validCuit, writeLines } from './support/padronFiles.ts';

describe('padrón retention', function () {
  this.timeout(60_000);
  let db: PadronDatabase;
  const folder = fileFolder();
  const cuit = validCuit(2033333333);

  before(async () => {
    db = await createPadronDatabase('padron_retention');
  });
  after(() => db.close());

  const loadMonth = (state: 'C' | 'S', offset: number, rate: string) =>
    db.load({ state, path: writeLines(folder, `${state}${offset}.txt`, agipLines(monthPeriod(offset), [{ cuit, perception: rate, withholding: rate }])) });
  const statuses = async (state: string) =>
    (await db.pool.query<{ load_id: number; status: string }>('select load_id, status from padron.loads where state = $1 order by load_id', [state])).rows.map((row) => row.status);

  it('drops the loads whose validity ended more than 13 months ago, keeping their records', async () => {
    const oldest = await loadMonth('C', -15, '1');
    await loadMonth('C', -14, '2');
    await loadMonth('C', -12, '3');
    await loadMonth('C', 0, '4');
    expect(await statuses('C')).to.deep.equal(['expired', 'expired', 'published', 'published']);
    expect((await db.pool.query('select 1 from pg_class where oid = to_regclass($1)', [`padron.rates_${oldest.loadId}`])).rowCount).to.equal(0);
    expect((await db.store.readStream('padron-C')).version, 'the events stay').to.equal(4);

    const service = await startTestService(db.pool);
    try {
      const at = async (date: string) => ((await (await fetch(`${service.url}/padron/cuit/${cuit}?state=C&regime=P&date=${date}`)).json()) as { results: Array<{ aliquot: number }> }).results.map((result) => result.aliquot);
      expect(await at(monthPeriod(-12).from), 'kept: queryable by date').to.deep.equal([3]);
      expect(await at(monthPeriod(-14).from), 'expired: gone').to.deep.equal([]);
      expect(await at(monthPeriod(0).from)).to.deep.equal([4]);
    } finally {
      await service.close();
    }
  });

  it('keeps the newest load of a jurisdiction however old it is', async () => {
    await loadMonth('S', -30, '1');
    await loadMonth('S', -20, '2');
    expect(await statuses('S')).to.deep.equal(['expired', 'published']);
  });
});
