import { createSubjects } from '../cuits.ts';
import { createName } from '../names.ts';
import { type GeneratorContext, IMPOSSIBLE_YYYYMMDD, countRow, type createTally, rowKind } from '../plan.ts';
import { TUCUMAN_RATES } from '../rateTables.ts';

const TUCUMAN_SUBJECTS = 68_135_792;
const NAME_WIDTH = 150;

const HEADER = [
  'DIRECCION GENERAL DE RENTAS DE TUCUMAN',
  'REGIMEN DE RETENCION Y PERCEPCION - CONTRIBUYENTES ACREDITADOS',
  'PERIODO: 06/2026',
  '',
  `C.U.I.T.     EX  CONV DESDE     HASTA     ${'RAZON SOCIAL'.padEnd(NAME_WIDTH)}PORC.`,
  `${'-'.repeat(13)}${'-'.repeat(3)}${'-'.repeat(4)}${'-'.repeat(8)}  ${'-'.repeat(8)}  ${'-'.repeat(NAME_WIDTH)}${'-'.repeat(5)}`,
  '',
];

/**
 * ACREDITAN.TXT: 7 header lines, then fixed-width rows. One row in ten has a name column one
 * character narrower or wider (the real files' quirk), 3 % are exempt (`E`), 2 % print `-----`.
 */
export function* tucumanLines(count: number, context: GeneratorContext, tally: ReturnType<typeof createTally>): Generator<string> {
  const { random } = context;
  const nextSubject = createSubjects(TUCUMAN_SUBJECTS);
  tally.lines += HEADER.length;
  yield* HEADER;
  for (let i = 0; i < count; i++) {
    const kind = rowKind(i, count, context);
    const subject = nextSubject(kind === 'invalid-check-digit');
    const exempt = random.chance(0.03);
    const noPercentage = !exempt && random.chance(0.02);
    const percentage = noPercentage || (exempt && random.chance(0.5)) ? '-----' : exempt ? '0' : random.weighted(TUCUMAN_RATES.rates, TUCUMAN_RATES.weights);
    const width = NAME_WIDTH + (random.chance(0.1) ? random.pick([-1, 1]) : 0);
    const from = kind === 'invalid-date' ? IMPOSSIBLE_YYYYMMDD : '20260601';
    const line = `${subject.cuit.padEnd(13)}${exempt ? 'E  ' : '   '}${subject.company && random.chance(0.5) ? 'CM  ' : '    '}${from}  20260630  ${createName(random, subject.company).padEnd(width)}${percentage.padStart(5)}`;
    if ((kind === 'valid' || kind === 'invalid-check-digit') && noPercentage) {
      tally.lines++;
      tally.reject('no porcentaje (-----)');
    } else {
      countRow(tally, kind, 2, { truncated: 'line too short for the fixed-width layout', invalidDate: 'invalid date (desde)' });
    }
    yield kind === 'truncated' ? line.slice(0, 30) : line;
  }
}
