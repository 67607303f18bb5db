import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { RegimeCode, StateCode } from '#services/padron/parse/padronRecord.ts';
import { createRandom } from './random.ts';
import { type FileExpectation, type GeneratorContext, PERIOD, createTally } from './plan.ts';
import { type LineEncoding, asAsync, encodeLines, writeChunks } from './lineFile.ts';
import { writeZip } from './zipWriter.ts';
import { DEFAULT_ROWS, type GeneratorOptions } from './options.ts';
import { arbaLines } from './formats/arba.ts';
import { CABA, ENTRE_RIOS, SANTA_FE, agipLines } from './formats/agip.ts';
import { luaLines } from './formats/lua.ts';
import { tucumanLines } from './formats/tucuman.ts';
import { SAMPLE_SALTA_RATES, saltaPercentageLines, saltaRiskLines } from './formats/salta.ts';

/** A generated file as the manifest lists it; `entry` is the text file's name inside a ZIP. */
export interface GeneratedFile extends FileExpectation {
  entry?: string;
}

type Lines = (context: GeneratorContext, tally: ReturnType<typeof createTally>) => Iterable<string>;

interface FileSpec {
  name: string;
  state: StateCode;
  regime?: RegimeCode;
  encoding: LineEncoding;
  lines: Lines;
  /** Shipped inside a ZIP of this name, as ARBA does. */
  zipAs?: string;
}

const LATIN1_CRLF: LineEncoding = { encoding: 'latin1', eol: '\r\n' };
const LATIN1_LF: LineEncoding = { encoding: 'latin1', eol: '\n' };

/** Name of the sample Salta rate table written beside the files. */
export const SALTA_RATES_FILE = 'salta-rates.json';
export const MANIFEST_FILE = 'manifest.json';

/** Every file of every layout, with the quirks FORMATS.md lists spread among them. */
function fileSpecs(options: GeneratorOptions): FileSpec[] {
  const rows = (count: number): number => Math.max(1, Math.round(count * options.scale));
  const arbaZip = (name: string): string | undefined => (options.zip ? name.replace(/\.TXT$/, '.zip') : undefined);
  const arbaP = `PadronRGSPer${PERIOD.monthYear}.TXT`;
  const arbaR = `PadronRGSRet${PERIOD.monthYear}.TXT`;
  return [
    { name: arbaP, state: 'B', encoding: LATIN1_CRLF, zipAs: arbaZip(arbaP), lines: (c, t) => arbaLines('P', rows(DEFAULT_ROWS.arbaPerception), c, t) },
    { name: arbaR, state: 'B', encoding: { ...LATIN1_CRLF, bom: true }, zipAs: arbaZip(arbaR), lines: (c, t) => arbaLines('R', rows(DEFAULT_ROWS.arbaWithholding), c, t) },
    { name: `ARDJU008${PERIOD.monthYear}.TXT`, state: 'C', encoding: LATIN1_CRLF, lines: (c, t) => agipLines(CABA, rows(DEFAULT_ROWS.caba), c, t) },
    { name: `PARP_${PERIOD.yearMonth}.csv`, state: 'S', encoding: LATIN1_LF, lines: (c, t) => agipLines(SANTA_FE, rows(DEFAULT_ROWS.santaFe), c, t) },
    { name: `PadronRetPer${PERIOD.yearMonth}.txt`, state: 'E', encoding: LATIN1_CRLF, lines: (c, t) => agipLines(ENTRE_RIOS, rows(DEFAULT_ROWS.entreRios), c, t) },
    { name: 'Régimen de percepción.txt', state: 'X', regime: 'P', encoding: LATIN1_LF, lines: (c, t) => luaLines('P', rows(DEFAULT_ROWS.cordobaPerception), c, t) },
    { name: 'Régimen de retención.txt', state: 'X', regime: 'R', encoding: LATIN1_LF, lines: (c, t) => luaLines('R', rows(DEFAULT_ROWS.cordobaWithholding), c, t) },
    { name: 'ACREDITAN.TXT', state: 'T', encoding: LATIN1_CRLF, lines: (c, t) => tucumanLines(rows(DEFAULT_ROWS.tucuman), c, t) },
    { name: 'Padron Riesgo Fiscal al 01-06-2026.txt', state: 'A', encoding: { encoding: 'utf8', eol: '\r\n', bom: true }, lines: (c, t) => saltaRiskLines(rows(DEFAULT_ROWS.saltaRisk), c, t) },
    { name: 'Padron Percepcion Salta al 01-06-2026.txt', state: 'A', encoding: LATIN1_LF, lines: (c, t) => saltaPercentageLines(rows(DEFAULT_ROWS.saltaPercentage), c, t) },
  ];
}

/**
 * Writes the synthetic padrón set into `options.out`, plus `salta-rates.json` and a manifest of
 * what each file must parse to (lines, records, rejects and warnings by reason). Files are written one after
 * the other, each streamed, so memory use does not grow with `--scale`.
 */
export async function generatePadronFiles(options: GeneratorOptions): Promise<GeneratedFile[]> {
  await mkdir(options.out, { recursive: true });
  const generated: GeneratedFile[] = [];
  for (const [index, spec] of fileSpecs(options).entries()) {
    const context: GeneratorContext = { random: createRandom(options.seed * 1_000 + index), invalidShare: options.invalidShare };
    const tally = createTally();
    const chunks = encodeLines(spec.encoding, spec.lines(context, tally));
    let bytes: number;
    if (spec.zipAs === undefined) {
      bytes = await writeChunks(join(options.out, spec.name), chunks);
    } else {
      const out = createWriteStream(join(options.out, spec.zipAs));
      await writeZip(out, [{ name: spec.name, data: asAsync(chunks) }]);
      out.end();
      await finished(out);
      bytes = out.bytesWritten;
    }
    const { lines, records, rejects, warnings } = tally;
    generated.push({
      file: spec.zipAs ?? spec.name,
      ...(spec.zipAs === undefined ? {} : { entry: spec.name }),
      state: spec.state,
      ...(spec.regime === undefined ? {} : { regime: spec.regime }),
      lines,
      records,
      rejects,
      warnings,
      bytes,
    });
  }
  await writeFile(join(options.out, SALTA_RATES_FILE), `${JSON.stringify(SAMPLE_SALTA_RATES, null, 2)}\n`);
  await writeFile(join(options.out, MANIFEST_FILE), `${JSON.stringify({ options, files: generated }, null, 2)}\n`);
  return generated;
}
