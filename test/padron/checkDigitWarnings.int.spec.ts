import { expect } from 'chai';
import { CHECK_DIGIT_WARNING } from '#services/padron/import/feedRecords.ts';
import type { PadronLoadedData } from '#services/padron/padron.ts';
import { createPadronDatabase, startTestService, type PadronDatabase } from './support/padronDatabase.ts';
import { badCuit, fileFolder, validCuit, writeLines } from './support/padronFiles.ts';

const RATES = { CM: { RA: { P: '3.6', R: '2.6' }, RB: { P: '1.8', R: '1.3' }, SR: { P: '0.9', R: '0.5' } }, JU: { RA: { P: '3.6', R: '2.6' }, RB: { P: '2.4', R: '1.5' }, SR: { P: '1.2', R: '0.8' } } };

/** Issue 17, item 3: rows the agency published with a wrong check digit are kept, warned about and answered. */
describe('padrón rows whose CUIT check digit does not verify', function () {
  this.timeout(60_000);
  let db: PadronDatabase;
  let load: PadronLoadedData;
  const folder = fileFolder();
  // 200 rows as Salta publishes them, 4 of them with a check digit that does not verify (lines 11, 61, 111, 161).
  const cuits = Array.from({ length: 200 }, (_, i) => (i % 50 === 9 ? badCuit(2300000000 + i * 17) : validCuit(2300000000 + i * 17)));
  const warned = cuits.filter((_, i) => i % 50 === 9);

  before(async () => {
    db = await createPadronDatabase('padron_check_digit');
    const rows = cuits.map((cuit, i) => `${cuit}\tCONTRIBUYENTE ${i}\t${i % 2 === 0 ? 'CM' : 'JU'}\tRA`);
    // Structurally broken rows stay rejected: 10 digits, a letter, a CUIT cut short by a missing column.
    const broken = ['2300000001\tDIEZ DIGITOS\tCM\tRA', '2300000001X\tCON LETRA\tJU\tRB', `${validCuit(2399999999)}\tSIN COLUMNA\tCM`];
    const path = writeLines(folder, 'Padrón Contribuyentes AAEE con Riesgo Fiscal al 01-06-2026.txt', ['CUIT\tDENOMINACION\tACTIVIDADES_ECONOMICAS\tNIVEL_RIESGO_FISCAL', ...rows, ...broken]);
    load = await db.load({ state: 'A', path, saltaRates: RATES });
  });
  after(() => db.close());

  it('keeps them, counts them as a warning in the load report, and still rejects broken rows', () => {
    expect(load).to.deep.include({ rowsLoaded: 400, rowsWarned: 4, rowsRejected: 3 });
    expect(load.warnings).to.deep.equal([{ reason: CHECK_DIGIT_WARNING, count: 4, firstLines: [11, 61, 111, 161] }]);
    expect(load.rejects).to.deep.equal([
      { reason: 'invalid CUIT (not 11 digits)', count: 2, firstLines: [202, 203] },
      { reason: 'wrong field count (got 3, expected 4)', count: 1, firstLines: [204] },
    ]);
  });

  it('answers the number as printed, alone and in a batch, and shows the count in /health', async () => {
    const service = await startTestService(db.pool);
    try {
      const single = await fetch(`${service.url}/padron/cuit/${warned[0]}`);
      expect(single.status).to.equal(200);
      const body = (await single.json()) as { cuit: string; results: Array<{ state: string; regime: string; aliquot: number }> };
      expect(body.cuit).to.equal(warned[0]);
      expect(body.results.map((result) => [result.state, result.regime, result.aliquot])).to.deep.equal([
        ['A', 'P', 3.6],
        ['A', 'R', 2.6],
      ]);
      const batch = await fetch(`${service.url}/padron/cuits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cuits: warned, regime: 'P' }) });
      const answers = ((await batch.json()) as { results: Record<string, unknown[]>; invalid: string[] });
      expect(answers.invalid).to.deep.equal([]);
      for (const cuit of warned) expect(answers.results[cuit], cuit).to.have.length(1);
      expect(await (await fetch(`${service.url}/health`)).json()).to.deep.equal({ status: 'ok', rows: { A: 400 }, check_digit_warnings: { A: 4 } });
    } finally {
      await service.close();
    }
  });
});
