import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { PadronLoadedData } from '#services/padron/padron.ts';
import { generatePadronFiles, MANIFEST_FILE, SALTA_RATES_FILE, type GeneratedFile } from '../../scripts/padron/generator/generateFiles.ts';
import { createPadronDatabase, startTestService, type PadronDatabase } from './support/padronDatabase.ts';
import { fileFolder } from './support/padronFiles.ts';

const DUPLICATE = 'duplicate CUIT and regime (the first line is kept)';

/** The generator's files, every layout with its quirks, imported end to end and looked up. */
describe('padrón import of generated files', function () {
  this.timeout(120_000);
  let db: PadronDatabase;
  const out = fileFolder();
  const loads: Array<{ file: GeneratedFile; load: PadronLoadedData }> = [];

  before(async () => {
    db = await createPadronDatabase('padron_generated');
    await generatePadronFiles({ out, scale: 0.005, seed: 7, invalidShare: 0.002, zip: true });
  });
  after(() => db.close());

  it('imports every file with the records, rejects and warnings its manifest expects', async () => {
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as { files: GeneratedFile[] };
    const saltaRates: unknown = JSON.parse(readFileSync(join(out, SALTA_RATES_FILE), 'utf8'));
    expect(manifest.files.map((file) => file.state).join('')).to.equal('BBCSEXXTAA');
    for (const file of manifest.files) {
      const load = await db.load({ state: file.state, path: join(out, file.file), regime: file.regime, saltaRates });
      loads.push({ file, load });
      const duplicates = load.rejects.find((reject) => reject.reason === DUPLICATE)?.count ?? 0;
      const rejects = Object.fromEntries(load.rejects.filter((reject) => reject.reason !== DUPLICATE).map((reject) => [reject.reason, reject.count]));
      expect(rejects, file.file).to.deep.equal(file.rejects);
      expect(Object.fromEntries((load.warnings ?? []).map((warning) => [warning.reason, warning.count])), file.file).to.deep.equal(file.warnings);
      expect(load.rowsWarned, file.file).to.equal(Object.values(file.warnings).reduce((sum, count) => sum + count, 0));
      expect(load.rowsLoaded + load.rowsRemoved + duplicates, file.file).to.equal(file.records);
      expect(load.rowsLoaded, file.file).to.be.above(0);
      expect(load.entries, file.file).to.deep.equal([file.entry ?? file.file]);
    }
  });

  it('answers lookups of the generated rows', async () => {
    const service = await startTestService(db.pool);
    try {
      const health = (await (await fetch(`${service.url}/health`)).json()) as { rows: Record<string, number>; check_digit_warnings: Record<string, number> };
      const expected: Record<string, number> = {};
      const warned: Record<string, number> = {};
      for (const { load } of loads) {
        expected[load.state] = (expected[load.state] ?? 0) + load.rowsLoaded;
        warned[load.state] = (warned[load.state] ?? 0) + (load.rowsWarned ?? 0);
      }
      expect(health.rows).to.deep.equal(expected);
      expect(health.check_digit_warnings).to.deep.equal(warned);
      expect(Object.values(warned).reduce((sum, count) => sum + count, 0), 'the generator wrote bad check digits').to.be.above(0);

      const caba = loads.find(({ load }) => load.state === 'C')?.file.file ?? '';
      const line = readFileSync(join(out, caba), 'latin1').split(/\r?\n/).find((text) => /;[SN];[SN];/.test(text)) ?? '';
      const fields = line.split(';');
      const rate = (field: string | undefined) => Number((field ?? '').replace(',', '.'));
      const body = (await (await fetch(`${service.url}/padron/cuit/${fields[3]}?state=C`)).json()) as { results: Array<{ regime: string; aliquot: number }> };
      expect(body.results.map((result) => [result.regime, result.aliquot])).to.deep.equal([
        ['P', rate(fields[7])],
        ['R', rate(fields[8])],
      ]);
    } finally {
      await service.close();
    }
  });
});
