import type { SaltaRateTable } from '#services/padron/parse/saltaRates.ts';
import { createSubjects } from '../cuits.ts';
import { createName } from '../names.ts';
import { type GeneratorContext, countRow, type createTally, rowKind } from '../plan.ts';
import { SALTA_OLD_RATES } from '../rateTables.ts';

const SALTA_SUBJECTS = 79_246_813;

/** A sample of the table the province publishes (values are illustrative, not official). */
export const SAMPLE_SALTA_RATES: SaltaRateTable = {
  CM: { RA: { P: '3.6', R: '2.6' }, RB: { P: '1.8', R: '1.3' }, SR: { P: '0.9', R: '0.5' } },
  JU: { RA: { P: '3.6', R: '2.6' }, RB: { P: '2.4', R: '1.5' }, SR: { P: '1.2', R: '0.8' } },
};

/**
 * The current risk file: header, `CUIT⇥DENOMINACION⇥CM|JU⇥RA|RB|SR`. It has no dates, so the
 * impossible-date defect becomes an unknown risk level.
 */
export function* saltaRiskLines(count: number, context: GeneratorContext, tally: ReturnType<typeof createTally>): Generator<string> {
  const { random } = context;
  const nextSubject = createSubjects(SALTA_SUBJECTS);
  tally.lines++;
  yield 'CUIT\tDENOMINACION\tACTIVIDADES_ECONOMICAS\tNIVEL_RIESGO_FISCAL';
  for (let i = 0; i < count; i++) {
    const kind = rowKind(i, count, context);
    const subject = nextSubject(kind === 'invalid-check-digit');
    const risk = kind === 'invalid-date' ? 'XX' : random.weighted(['RA', 'RB', 'SR'], [1, 3, 6]);
    const name = createName(random, subject.company);
    countRow(tally, kind, 2, { truncated: 'wrong field count (got 2, expected 4)', invalidDate: 'invalid risk level (not RA, RB or SR)' });
    yield kind === 'truncated' ? `${subject.cuit}\t${name}` : `${subject.cuit}\t${name}\t${random.chance(0.3) ? 'CM' : 'JU'}\t${risk}`;
  }
}

/** The older file: header, `CUIT⇥name⇥percentage`, dot decimals, perception only. */
export function* saltaPercentageLines(count: number, context: GeneratorContext, tally: ReturnType<typeof createTally>): Generator<string> {
  const { random } = context;
  const nextSubject = createSubjects(SALTA_SUBJECTS);
  tally.lines++;
  yield 'CUIT\tRAZON_SOCIAL\tPORCENTAJE';
  for (let i = 0; i < count; i++) {
    const kind = rowKind(i, count, context);
    const subject = nextSubject(kind === 'invalid-check-digit');
    const rate = kind === 'invalid-date' ? '1.5.0' : random.weighted(SALTA_OLD_RATES.rates, SALTA_OLD_RATES.weights);
    const name = createName(random, subject.company);
    countRow(tally, kind, 1, { truncated: 'wrong field count (got 2, expected 3)', invalidDate: 'invalid rate (porcentaje)' });
    yield kind === 'truncated' ? `${subject.cuit}\t${name}` : `${subject.cuit}\t${name}\t${rate}`;
  }
}
