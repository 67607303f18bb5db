import { createSubjects } from '../cuits.ts';
import { createName } from '../names.ts';
import { type GeneratorContext, IMPOSSIBLE_DDMMYYYY, PERIOD, countRow, type createTally, rowKind, truncate } from '../plan.ts';
import { AGIP_RATES, type RateTable, SANTA_FE_RATES, groupOf } from '../rateTables.ts';

/** How a jurisdiction using AGIP's design writes it. */
export interface AgipDialect {
  subjects: number;
  rates: RateTable;
  /** Santa Fe: 7-digit dates, `-` as marca alta, unpadded groups. */
  santaFe: boolean;
  /** Entre Ríos: one header line first. */
  header: boolean;
  /** A NUL byte at the end of roughly this share of lines (seen in CABA's file). */
  nulShare: number;
}

export const CABA: AgipDialect = { subjects: 24_681_357, rates: AGIP_RATES, santaFe: false, header: false, nulShare: 0.0005 };
export const SANTA_FE: AgipDialect = { subjects: 35_792_468, rates: SANTA_FE_RATES, santaFe: true, header: false, nulShare: 0 };
export const ENTRE_RIOS: AgipDialect = { subjects: 46_813_579, rates: AGIP_RATES, santaFe: false, header: true, nulShare: 0 };

const ENTRE_RIOS_HEADER = 'FECHA_PUBLICACION;FECHA_DESDE;FECHA_HASTA;CUIT;TIPO;MARCA_ALTA;MARCA_ALICUOTA;ALICUOTA_PERCEPCION;ALICUOTA_RETENCION;GRUPO_PERCEPCION;GRUPO_RETENCION;RAZON_SOCIAL';

/** AGIP-design lines: `pub;desde;hasta;CUIT;tipo;marcaAlta;marcaAlic;alicPerc;alicRet;grpPerc;grpRet;razonSocial`. */
export function* agipLines(dialect: AgipDialect, count: number, context: GeneratorContext, tally: ReturnType<typeof createTally>): Generator<string> {
  const { random } = context;
  const nextSubject = createSubjects(dialect.subjects);
  const group = (rate: string): string => (dialect.santaFe ? String(Number(groupOf(dialect.rates, rate)) % 3) : groupOf(dialect.rates, rate));
  const from = dialect.santaFe ? PERIOD.from.replace(/^0/, '') : PERIOD.from;
  if (dialect.header) {
    tally.lines++;
    yield ENTRE_RIOS_HEADER;
  }
  for (let i = 0; i < count; i++) {
    const kind = rowKind(i, count, context);
    const subject = nextSubject(kind === 'invalid-check-digit');
    const perception = random.weighted(dialect.rates.rates, dialect.rates.weights);
    const withholding = random.weighted(dialect.rates.rates, dialect.rates.weights);
    const removedMark = random.chance(0.01) ? 'B' : dialect.santaFe ? '-' : random.chance(0.9) ? 'S' : 'N';
    const name = createName(random, subject.company);
    const validFrom = kind === 'invalid-date' ? IMPOSSIBLE_DDMMYYYY : from;
    const line = `${PERIOD.published};${validFrom};${PERIOD.to};${subject.cuit};${subject.company || random.chance(0.3) ? 'C' : 'D'};${removedMark};${random.chance(0.1) ? 'S' : 'N'};${perception};${withholding};${group(perception)};${group(withholding)};${name}`;
    countRow(tally, kind, 2, { truncated: 'wrong field count (got 6, expected 12)', invalidDate: 'invalid date (desde)' }, removedMark === 'B');
    const nul = random.chance(dialect.nulShare) ? '\0' : '';
    yield (kind === 'truncated' ? truncate(line, ';', 6) : line) + nul;
  }
}
