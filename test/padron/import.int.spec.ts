import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { expect } from 'chai';
import { CHECK_DIGIT_WARNING } from '#services/padron/import/feedRecords.ts';
import { PadronInputError } from '#services/padron/import/padronInputError.ts';
import { PadronFormatError } from '#services/padron/parse/padronFormatError.ts';
import { writeZip } from '../../scripts/padron/generator/zipWriter.ts';
import { createPadronDatabase, type PadronDatabase } from './support/padronDatabase.ts';
import { agipLines, badCuit, fileFolder, monthPeriod, rgsLines, validCuit, writeLines } from './support/padronFiles.ts';

describe('padrón import', function () {
  this.timeout(60_000);
  let db: PadronDatabase;
  const folder = fileFolder();
  const period = monthPeriod();
  const cuits = [1, 2, 3, 4, 5].map((n) => validCuit(2000000000 + n * 1000));

  before(async () => {
    db = await createPadronDatabase('padron_import');
  });
  after(() => db.close());

  const loadRow = async (loadId: number) =>
    (await db.pool.query<{ status: string; rows_loaded: number; regimes: string; error: string | null }>('select status, rows_loaded, regimes, error from padron.loads where load_id = $1', [loadId])).rows[0];
  const tableExists = async (loadId: number) => (await db.pool.query('select 1 from pg_class where oid = to_regclass($1)', [`padron.rates_${loadId}`])).rowCount === 1;

  it('streams a file into a published load and records PadronLoaded with its report', async () => {
    const lines = rgsLines('P', period, [
      { cuit: cuits[0] ?? '', rate: '6,00', group: '25' },
      { cuit: cuits[1] ?? '', rate: '02,75' },
      { cuit: badCuit(2000009000), rate: '1,00' },
      { cuit: cuits[2] ?? '', rate: '1,5', removed: true },
    ]);
    const path = writeLines(folder, 'PadronRGSPer-first.TXT', [...lines, 'P;garbage', '']);
    const load = await db.load({ state: 'B', path });
    expect(load).to.deep.include({
      state: 'B',
      regimes: ['P'],
      fileName: 'PadronRGSPer-first.TXT',
      entries: ['PadronRGSPer-first.TXT'],
      layout: 'rgs',
      validFrom: period.from,
      validTo: period.to,
      rowsLoaded: 3,
      rowsRemoved: 1,
      rowsRejected: 1,
      rowsWarned: 1,
    });
    expect(load.sha256).to.match(/^[0-9a-f]{64}$/);
    expect(load.rejects).to.deep.equal([{ reason: 'wrong field count (got 2, expected 10)', count: 1, firstLines: [5] }]);
    expect(load.warnings).to.deep.equal([{ reason: CHECK_DIGIT_WARNING, count: 1, firstLines: [3] }]);
    expect(await loadRow(load.loadId)).to.deep.include({ status: 'published', rows_loaded: 3, regimes: 'P' });
    const { rows } = await db.pool.query<{ cuit: number; aliquot: string; grp: string }>('select cuit, aliquot::text, grp from padron.rates where load_id = $1 order by line', [load.loadId]);
    expect(rows).to.deep.equal([
      { cuit: Number(cuits[0]), aliquot: '6.00', grp: '25' },
      { cuit: Number(cuits[1]), aliquot: '2.75', grp: '00' },
      { cuit: Number(badCuit(2000009000)), aliquot: '1.00', grp: '00' },
    ]);
    const stream = await db.store.readStream('padron-B');
    expect(stream.events.map((event) => [event.type, event.data])).to.deep.equal([['PadronLoaded', load]]);
  });

  it('changes nothing for the same file again and says so', async () => {
    const before = await db.pool.query('select count(*)::int as n from padron.loads');
    const outcome = await db.importFile({ state: 'B', path: join(folder, 'PadronRGSPer-first.TXT') });
    expect(outcome.status).to.equal('unchanged');
    expect(outcome.status === 'unchanged' && outcome.message).to.match(/^this file \(sha256 [0-9a-f]{12}…\) was already loaded as load \d+ \(PadronRGSPer-first\.TXT, published [^)]+\) and serves regime P; nothing changed$/);
    expect((await db.pool.query('select count(*)::int as n from padron.loads')).rows).to.deep.equal(before.rows);
    expect((await db.store.readStream('padron-B')).version).to.equal(1);
  });

  it('keeps the first line of a repeated CUIT and reports the others with their line numbers', async () => {
    const rows = [
      { cuit: cuits[0] ?? '', rate: '1,00' },
      { cuit: cuits[1] ?? '', rate: '2,00' },
      { cuit: cuits[0] ?? '', rate: '3,00' },
      { cuit: cuits[0] ?? '', rate: '4,00' },
    ];
    const load = await db.load({ state: 'X', path: writeLines(folder, 'dup.txt', rgsLines('R', period, rows).map((line) => line.replace(/;D;N;N;([^;]+);00;$/, ';L;X;N;$1'))), regime: 'R' });
    expect(load.rowsLoaded).to.equal(2);
    expect(load.rejects).to.deep.equal([{ reason: 'duplicate CUIT and regime (the first line is kept)', count: 2, firstLines: [3, 4] }]);
    const kept = await db.pool.query<{ aliquot: string }>('select aliquot::text from padron.rates where load_id = $1 and cuit = $2', [load.loadId, cuits[0]]);
    expect(kept.rows).to.deep.equal([{ aliquot: '1.00' }]);
  });

  it('imports every text file of a ZIP into one load', async () => {
    const path = join(folder, 'arba.zip');
    const out = createWriteStream(path);
    const text = (lines: string[]) => Readable.from([Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1')]);
    await writeZip(out, [
      { name: 'PadronRGSPer-zip.TXT', data: text(rgsLines('P', period, [{ cuit: cuits[3] ?? '', rate: '1,00' }])) },
      { name: 'PadronRGSRet-zip.TXT', data: text(rgsLines('R', period, [{ cuit: cuits[3] ?? '', rate: '0,50' }, { cuit: 'x', rate: '1' }])) },
      { name: 'LEEME.txt', data: text(['not a padron']) },
    ]);
    out.end();
    await finished(out);
    const outcome = await db.importFile({ state: 'B', path });
    if (outcome.status !== 'loaded') throw new Error(outcome.message);
    expect(outcome.load).to.deep.include({ regimes: ['P', 'R'], entries: ['PadronRGSPer-zip.TXT', 'PadronRGSRet-zip.TXT'], rowsLoaded: 2, layout: 'rgs' });
    expect(outcome.load.rejects).to.deep.equal([{ reason: 'PadronRGSRet-zip.TXT: invalid CUIT (not 11 digits)', count: 1, firstLines: [2] }]);
    expect(outcome.skipped).to.have.length(1);
    expect(outcome.skipped[0]).to.match(/^'LEEME\.txt' matches no known padrón layout/);
  });

  it('refuses a file whose content is another jurisdiction’s, before creating a load', async () => {
    const before = (await db.pool.query<{ n: number }>('select count(*)::int as n from padron.loads')).rows[0]?.n;
    const path = writeLines(folder, 'cordoba-as-caba.txt', agipLines(period, [{ cuit: cuits[0] ?? '', perception: '1,00', withholding: '1,00' }]));
    let refusal: unknown;
    await db.importFile({ state: 'X', path }).catch((error: unknown) => (refusal = error));
    expect(refusal).to.be.instanceOf(PadronFormatError);
    expect((refusal as Error).message).to.equal("'cordoba-as-caba.txt' looks like the AGIP layout of CABA, Santa Fe and Entre Ríos (12 fields, dates first), not Córdoba's LUA layout");
    expect((await db.pool.query<{ n: number }>('select count(*)::int as n from padron.loads')).rows[0]?.n).to.equal(before);
  });

  it('refuses a missing file', async () => {
    let refusal: unknown;
    await db.importFile({ state: 'C', path: join(folder, 'nope.txt') }).catch((error: unknown) => (refusal = error));
    expect(refusal).to.be.instanceOf(PadronInputError);
    expect((refusal as Error).message).to.equal(`file not found: ${join(folder, 'nope.txt')}`);
  });

  it('refuses a file with no current rate and leaves the previous load serving', async () => {
    const previous = await db.load({ state: 'C', path: writeLines(folder, 'ARDJU-good.TXT', agipLines(period, [{ cuit: cuits[0] ?? '', perception: '3,00', withholding: '2,00' }])) });
    const path = writeLines(folder, 'ARDJU-bad.TXT', agipLines(period, [{ cuit: '2000001000', perception: '3,00', withholding: '2,00' }, { cuit: cuits[1] ?? '', perception: '1', withholding: '1', removed: true }]));
    let refusal: unknown;
    await db.importFile({ state: 'C', path }).catch((error: unknown) => (refusal = error));
    expect((refusal as Error).message).to.equal("'ARDJU-bad.TXT' has no current rate to publish (rejected: 1, removed: 2); the previous load keeps serving");
    const { rows } = await db.pool.query<{ load_id: number; status: string }>(`select load_id, status from padron.loads where state = 'C' order by load_id`);
    expect(rows.map((row) => row.status)).to.deep.equal(['published', 'failed']);
    expect(rows[0]?.load_id).to.equal(previous.loadId);
    expect(await tableExists(rows[1]?.load_id ?? 0), 'the failed load left no table').to.equal(false);
  });

  it('stops the COPY and keeps the previous load when the file breaks half-way', async () => {
    const good = rgsLines('R', period, Array.from({ length: 50_000 }, (_, i) => ({ cuit: validCuit(2200000000 + i * 3), rate: '1,00' })));
    const path = writeLines(folder, 'PadronRGSRet-broken.TXT', [...good, 'R;'.repeat(1_500_000)]);
    let failure: unknown;
    await db.importFile({ state: 'B', path }).catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.match(/^line 50001 is longer than 1048576 characters: not a line-oriented text file$/);
    const { rows } = await db.pool.query<{ status: string; error: string }>(`select status, error from padron.loads where file_name = 'PadronRGSRet-broken.TXT'`);
    expect(rows).to.deep.equal([{ status: 'failed', error: 'line 50001 is longer than 1048576 characters: not a line-oriented text file' }]);
    expect((await db.pool.query('select 1')).rowCount, 'the pool still works').to.equal(1);
  });

  it('marks a load whose importer died as failed when the next import starts', async () => {
    const { rows } = await db.pool.query<{ load_id: number }>(`insert into padron.loads (state, file_name, sha256) values ('T', 'ACREDITAN.TXT', 'dead') returning load_id`);
    const abandoned = rows[0]?.load_id ?? 0;
    const outcome = await db.importFile({ state: 'B', path: writeLines(folder, 'PadronRGSRet-after-crash.TXT', rgsLines('R', period, [{ cuit: cuits[4] ?? '', rate: '1,00' }])) });
    expect(outcome.status === 'loaded' && outcome.abandonedLoads).to.deep.equal([abandoned]);
    expect(await loadRow(abandoned)).to.deep.include({ status: 'failed', error: 'interrupted: the importing process stopped before publishing' });
  });

  it('records the event of a load published by a run that died before recording it', async () => {
    const path = writeLines(folder, 'santa-fe-lost-event.csv', agipLines(period, [{ cuit: cuits[4] ?? '', perception: '9', withholding: '1' }]));
    const failing = { ...db.store, appendToStream: () => Promise.reject(new Error('killed before the append')) };
    const { importPadronFile } = await import('#services/padron/import/importPadron.ts');
    await importPadronFile({ pool: db.pool, store: failing, databaseUrl: db.url }, { state: 'S', path }).catch(() => undefined);
    const published = await db.pool.query<{ load_id: number }>(`select load_id from padron.loads where state = 'S' and status = 'published'`);
    expect(published.rowCount, 'the data was published').to.equal(1);
    expect((await db.store.readStream('padron-S')).version).to.equal(0);

    const outcome = await db.importFile({ state: 'S', path });
    expect(outcome).to.deep.equal({ status: 'unchanged', message: `this file was already published as load ${published.rows[0]?.load_id}; its missing PadronLoaded event is now recorded; nothing else changed` });
    const stream = await db.store.readStream<{ type: string; data: { loadId: number } }>('padron-S');
    expect(stream.events.map((event) => event.data.loadId)).to.deep.equal([published.rows[0]?.load_id]);
  });
});
