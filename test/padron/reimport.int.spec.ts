import { expect } from 'chai';
import { createClient } from '#shared/db.ts';
import { PadronFormatError } from '#services/padron/parse/padronFormatError.ts';
import { expireOldLoads } from '#services/padron/storage/retention.ts';
import { createPadronDatabase, startTestService, type PadronDatabase } from './support/padronDatabase.ts';
import { agipLines, fileFolder, monthPeriod, rgsLines, validCuit, writeLines } from './support/padronFiles.ts';

/** Issue 17, item 4: "unchanged" means the same file is loaded and serving with the same regime. */
describe('padrón re-import of the same file', function () {
  this.timeout(60_000);
  let db: PadronDatabase;
  const folder = fileFolder();
  const cuit = validCuit(2044444444);

  before(async () => {
    db = await createPadronDatabase('padron_reimport');
  });
  after(() => db.close());

  const loadCount = async () => (await db.pool.query<{ n: number }>('select count(*)::int as n from padron.loads')).rows[0]?.n;
  const status = async (loadId: number) => (await db.pool.query<{ status: string }>('select status from padron.loads where load_id = $1', [loadId])).rows[0]?.status;
  const refusalOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected a refusal');
  };

  it('imports a file again after retention dropped its load, and serves it', async () => {
    const path = writeLines(folder, 'ARDJU-retained.TXT', agipLines(monthPeriod(0), [{ cuit, perception: '1,25', withholding: '0,75' }]));
    const first = await db.load({ state: 'C', path });
    await db.load({ state: 'C', path: writeLines(folder, 'ARDJU-next.TXT', agipLines(monthPeriod(1), [{ cuit, perception: '9', withholding: '9' }])) });
    // Retention as a run years from now does it: the first load is past 13 months and not the newest.
    const client = createClient(db.url, 'test');
    await client.connect();
    try {
      expect(await expireOldLoads(client, 'C', `${Number(monthPeriod(0).from.slice(0, 4)) + 3}-01-01`)).to.deep.equal([first.loadId]);
    } finally {
      await client.end();
    }
    expect(await status(first.loadId)).to.equal('expired');

    const outcome = await db.importFile({ state: 'C', path });
    if (outcome.status !== 'loaded') throw new Error(`expected a new load, got: ${outcome.message}`);
    expect(outcome.load.loadId).to.be.above(first.loadId);
    expect(outcome.load.sha256).to.equal(first.sha256);
    expect(await status(outcome.load.loadId)).to.equal('published');
    const stream = await db.store.readStream<{ type: string; data: { loadId: number; sha256: string } }>('padron-C');
    expect(stream.events.map((event) => event.data.loadId)).to.include.members([first.loadId, outcome.load.loadId]);

    const service = await startTestService(db.pool);
    try {
      const body = (await (await fetch(`${service.url}/padron/cuit/${cuit}?state=C`)).json()) as { results: Array<{ regime: string; aliquot: number }> };
      expect(body.results.map((result) => [result.regime, result.aliquot])).to.deep.equal([
        ['P', 1.25],
        ['R', 0.75],
      ]);
    } finally {
      await service.close();
    }
    const again = await db.importFile({ state: 'C', path });
    expect(again.status, 'now it is loaded and serving').to.equal('unchanged');
  });

  it('refuses the same file with a regime that contradicts it (exit 2 in the CLI), changing nothing', async () => {
    const named = writeLines(folder, 'PadronRGSPer-contradicted.TXT', rgsLines('P', monthPeriod(0), [{ cuit, rate: '2,00' }]));
    await db.load({ state: 'B', path: named });
    const before = await loadCount();
    const byName = await refusalOf(db.importFile({ state: 'B', path: named, regime: 'R' }));
    expect(byName).to.be.instanceOf(PadronFormatError);
    expect(byName.message).to.equal("'PadronRGSPer-contradicted.TXT' is a P file by its name, but regime R was asked");

    const unnamed = writeLines(folder, 'padron-b.txt', rgsLines('P', monthPeriod(0), [{ cuit, rate: '3,00' }]));
    await db.load({ state: 'B', path: unnamed, regime: 'P' });
    const byRows = await refusalOf(db.importFile({ state: 'B', path: unnamed, regime: 'R' }));
    expect(byRows.message).to.equal("'padron-b.txt' holds P rows but is being imported as regime R");
    expect(await loadCount()).to.equal((before ?? 0) + 1);
  });

  it('loads the regime an earlier import of the file left out, and is unchanged for one it serves', async () => {
    const path = writeLines(folder, 'ARDJU-regimes.TXT', agipLines(monthPeriod(0), [{ cuit: validCuit(2055555555), perception: '3,00', withholding: '2,00' }]));
    const perception = await db.load({ state: 'C', path, regime: 'P' });
    expect(perception.regimes).to.deep.equal(['P']);
    expect((await db.importFile({ state: 'C', path, regime: 'P' })).status).to.equal('unchanged');

    const both = await db.load({ state: 'C', path });
    expect(both.regimes).to.deep.equal(['P', 'R']);
    const withholding = await db.importFile({ state: 'C', path, regime: 'R' });
    expect(withholding.status).to.equal('unchanged');
    expect(withholding.status === 'unchanged' && withholding.message).to.match(new RegExp(`was already loaded as load ${both.loadId} \\(ARDJU-regimes\\.TXT, published [^)]+\\) and serves regimes P, R; nothing changed$`));
  });

  it('loads a Salta file again for another --date, and is unchanged for the same one', async () => {
    const path = writeLines(folder, 'salta-percepcion.txt', ['CUIT\tRAZON SOCIAL\tPORCENTAJE', `${cuit}\tACME SA\t1.5`]);
    const june = await db.load({ state: 'A', path, date: '2026-06-01' });
    expect(june.validFrom).to.equal('2026-06-01');
    expect((await db.importFile({ state: 'A', path, date: '2026-06-01' })).status).to.equal('unchanged');
    const july = await db.load({ state: 'A', path, date: '2026-07-01' });
    expect(july.validFrom).to.equal('2026-07-01');
    expect(july.loadId).to.be.above(june.loadId);
  });
});
