import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { openPadronEntries } from '#services/padron/archive/openPadronEntries.ts';
import { DETECTION_LINES, openParser } from '#services/padron/parse/detect.ts';
import { peekLines, readLineBatches } from '#services/padron/parse/lines.ts';
import type { PadronRecord } from '#services/padron/parse/padronRecord.ts';
import { type GeneratedFile, SALTA_RATES_FILE, generatePadronFiles } from '../../../scripts/padron/generator/generateFiles.ts';
import { useTempDir } from '#test/padron/fixtures/tempDir.ts';

interface Outcome {
  lines: number;
  records: number;
  rejects: Record<string, number>;
  sample: PadronRecord[];
}

/** The import's read path end to end: archive, line reader, detection, parser. */
async function parseGenerated(dir: string, file: GeneratedFile, saltaRates: unknown): Promise<Outcome> {
  const outcome: Outcome = { lines: 0, records: 0, rejects: {}, sample: [] };
  for await (const entry of openPadronEntries(join(dir, file.file))) {
    const { firstLines, batches } = await peekLines(readLineBatches(entry.stream), DETECTION_LINES);
    const parser = openParser({ state: file.state, fileName: entry.name, firstLines, saltaRates, ...(file.regime === undefined ? {} : { regime: file.regime }) });
    for await (const batch of batches) {
      outcome.lines += batch.lines.length;
      batch.lines.forEach((line, i) => {
        const result = parser.parseLine(line, batch.firstLineNumber + i);
        if (result === null) return;
        if (!Array.isArray(result)) {
          outcome.rejects[result.reason] = (outcome.rejects[result.reason] ?? 0) + 1;
          return;
        }
        outcome.records += result.length;
        if (outcome.sample.length < 5) outcome.sample.push(...result);
      });
    }
  }
  return outcome;
}

describe('generated padrón files round-trip through the parsers', function () {
  this.timeout(60_000);
  const dir = useTempDir('generated');

  it('parses every generated file to exactly the records and rejects its manifest promises', async () => {
    const files = await generatePadronFiles({ out: dir.path, scale: 0.002, seed: 7, invalidShare: 0.01, zip: true });
    expect(files.map((file) => file.state).sort().join('')).to.equal('AABBCESTXX');
    const saltaRates: unknown = JSON.parse(await readFile(join(dir.path, SALTA_RATES_FILE), 'utf8'));
    for (const file of files) {
      const outcome = await parseGenerated(dir.path, file, saltaRates);
      expect({ lines: outcome.lines, records: outcome.records, rejects: outcome.rejects }, file.file).to.deep.equal({ lines: file.lines, records: file.records, rejects: file.rejects });
      for (const record of outcome.sample) {
        expect(String(record.cuit), file.file).to.match(/^\d{11}$/);
        expect(record.aliquot, file.file).to.match(/^\d{1,3}(\.\d+)?$/);
      }
    }
  });

  it('writes names with Latin-1 accents that decode back intact', async () => {
    await generatePadronFiles({ out: dir.path, scale: 0.001, seed: 3, invalidShare: 0, zip: false });
    const content = await readFile(join(dir.path, 'ARDJU008062026.TXT'));
    expect(content.includes(Buffer.from('Ñ', 'latin1')) || content.includes(Buffer.from('Í', 'latin1'))).to.equal(true);
    expect(content.includes(Buffer.from('Ñ', 'utf8'))).to.equal(false);
  });
});
