import type { RegimeCode } from '#services/padron/parse/padronRecord.ts';
import { createSubjects } from '../cuits.ts';
import { type GeneratorContext, IMPOSSIBLE_DDMMYYYY, PERIOD, countRow, type createTally, rowKind, truncate } from '../plan.ts';
import { CORDOBA_RATES } from '../rateTables.ts';

const CORDOBA_SUBJECTS = 57_924_681;

/** Córdoba LUA lines, `P|R;pub;desde;hasta;CUIT;categoria;X;marcaAlic;alicuota`, rates zero-padded. */
export function* luaLines(regime: RegimeCode, count: number, context: GeneratorContext, tally: ReturnType<typeof createTally>): Generator<string> {
  const { random } = context;
  const nextSubject = createSubjects(CORDOBA_SUBJECTS);
  for (let i = 0; i < count; i++) {
    const kind = rowKind(i, count, context);
    const { cuit } = nextSubject(kind === 'invalid-check-digit');
    const rate = random.weighted(CORDOBA_RATES.rates, CORDOBA_RATES.weights);
    const category = random.weighted(['C', 'L', 'N'], [3, 6, 1]);
    const from = kind === 'invalid-date' ? IMPOSSIBLE_DDMMYYYY : PERIOD.from;
    const line = `${regime};${PERIOD.published};${from};${PERIOD.to};${cuit};${category};X;${random.chance(0.1) ? 'S' : 'N'};${rate}`;
    countRow(tally, kind, 1, { truncated: 'wrong field count (got 4, expected 9)', invalidDate: 'invalid date (desde)' });
    yield kind === 'truncated' ? truncate(line, ';', 4) : line;
  }
}
