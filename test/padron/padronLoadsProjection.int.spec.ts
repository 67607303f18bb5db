import { expect } from 'chai';
import { createKysely } from '#shared/db.ts';
import { migrateReadModel } from '#projections/migrations/index.ts';
import { padronLoadsProjection } from '#projections/padronLoads/padronLoads.ts';
import { readModelOf, type ReadModel } from '#projections/readModel.ts';
import { rebuildProjection } from '#projections/runner/rebuild.ts';
import { listRecordedLoads } from '#projections/padronLoads/padronLoadsQuery.ts';
import { createPadronDatabase, type PadronDatabase } from './support/padronDatabase.ts';
import { agipLines, fileFolder, monthPeriod, rgsLines, validCuit, writeLines } from './support/padronFiles.ts';

describe('padron_loads read model', function () {
  this.timeout(60_000);
  let db: PadronDatabase;
  let readModel: ReadModel;

  before(async () => {
    db = await createPadronDatabase('padron_loads');
    await migrateReadModel(createKysely<unknown>(db.pool));
    readModel = readModelOf(createKysely(db.pool));
  });
  after(() => db.close());

  it('is empty, and says the projector never ran, before any event', async () => {
    expect(await listRecordedLoads(readModel, await db.store.headPosition())).to.deep.equal({ loads: [], lag: null });
  });

  it('lists every PadronLoaded, newest first, the same after a second replay', async () => {
    const folder = fileFolder();
    const period = monthPeriod();
    const cuit = validCuit(2055555555);
    const b = await db.load({ state: 'B', path: writeLines(folder, 'PadronRGSRet-p.TXT', rgsLines('R', period, [{ cuit, rate: '1,00' }, { cuit: 'bad', rate: '1' }])) });
    const c = await db.load({ state: 'C', path: writeLines(folder, 'ARDJU-p.TXT', agipLines(period, [{ cuit, perception: '1', withholding: '2', removed: true }, { cuit: validCuit(2055555556), perception: '1', withholding: '2' }])) });
    const deps = { store: db.store, db: readModel, connectionString: db.url, batchSize: 1 };
    for (let replay = 0; replay < 2; replay++) {
      await rebuildProjection(padronLoadsProjection, deps);
      const { loads, lag } = await listRecordedLoads(readModel, await db.store.headPosition());
      expect(lag).to.equal(0);
      expect(loads.map((load) => ({ ...load, published_at: load.published_at.toISOString() }))).to.deep.equal([
        { state: 'C', load_id: c.loadId, file_name: 'ARDJU-p.TXT', layout: 'agip', regimes: 'PR', valid_from: period.from, valid_to: period.to, rows_loaded: 2, rows_removed: 2, rows_rejected: 0, duration_ms: c.durationMs, published_at: c.publishedAt },
        { state: 'B', load_id: b.loadId, file_name: 'PadronRGSRet-p.TXT', layout: 'rgs', regimes: 'R', valid_from: period.from, valid_to: period.to, rows_loaded: 1, rows_removed: 0, rows_rejected: 1, duration_ms: b.durationMs, published_at: b.publishedAt },
      ]);
    }
    expect((await listRecordedLoads(readModel, await db.store.headPosition(), 'B')).loads.map((load) => load.state)).to.deep.equal(['B']);
  });
});
