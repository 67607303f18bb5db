import type { RegimeCode } from '#services/padron/parse/padronRecord.ts';
import { createSubjects } from '../cuits.ts';
import { type GeneratorContext, IMPOSSIBLE_DDMMYYYY, PERIOD, countRow, type createTally, rowKind, truncate } from '../plan.ts';
import { ARBA_PERCEPTION, ARBA_WITHHOLDING, groupOf } from '../rateTables.ts';

/** ARBA's subjects: the perception and withholding files list the same CUITs. */
const ARBA_SUBJECTS = 13_579_246;

/**
 * ARBA RGS lines, `P;pub;desde;hasta;CUIT;tipo;marcaAlta;marcaAlic;alicuota;grupo;`, 55
 * characters each: about 1 % removed (`B`), a fifth Convenio Multilateral.
 */
export function* arbaLines(regime: RegimeCode, count: number, context: GeneratorContext, tally: ReturnType<typeof createTally>): Generator<string> {
  const { random } = context;
  const table = regime === 'P' ? ARBA_PERCEPTION : ARBA_WITHHOLDING;
  const nextSubject = createSubjects(ARBA_SUBJECTS);
  for (let i = 0; i < count; i++) {
    const kind = rowKind(i, count, context);
    const { cuit } = nextSubject(kind === 'invalid-check-digit');
    const rate = random.weighted(table.rates, table.weights);
    const removedMark = random.chance(0.01) ? 'B' : random.chance(0.8) ? 'N' : 'S';
    const from = kind === 'invalid-date' ? IMPOSSIBLE_DDMMYYYY : PERIOD.from;
    const line = `${regime};${PERIOD.published};${from};${PERIOD.to};${cuit};${random.chance(0.2) ? 'C' : 'D'};${removedMark};${random.chance(0.1) ? 'S' : 'N'};${rate};${groupOf(table, rate)};`;
    countRow(tally, kind, 1, { truncated: 'wrong field count (got 5, expected 10)', invalidDate: 'invalid date (desde)' }, removedMark === 'B');
    yield kind === 'truncated' ? truncate(line, ';', 5) : line;
  }
}
