import { Ajv, type ErrorObject } from 'ajv';
import type { RegimeCode } from './padronRecord.ts';
import { PadronFormatError } from './padronFormatError.ts';
import { createRateReader } from './rates.ts';
import { saltaRatesSchema } from './saltaRates.schema.ts';

/** Convenio Multilateral or local (*jurisdiccional*) taxpayer, Salta's ACTIVIDADES_ECONOMICAS column. */
export type SaltaActivity = 'CM' | 'JU';
/** Fiscal risk: alto, bajo, sin riesgo (NIVEL_RIESGO_FISCAL). */
export type SaltaRisk = 'RA' | 'RB' | 'SR';

/** Validated table: exact decimal rate strings per activity, risk level and regime. */
export type SaltaRateTable = Readonly<Record<SaltaActivity, Readonly<Record<SaltaRisk, Partial<Record<RegimeCode, string>>>>>>;

type RawRates = Record<SaltaActivity, Record<SaltaRisk, Partial<Record<RegimeCode, string | number>>>>;

const validate = new Ajv({ allErrors: true, strict: true }).compile<RawRates>(saltaRatesSchema);
const readRate = createRateReader('.');

/**
 * Checks a rate table given as data (parsed JSON) and returns it with every rate as an exact
 * decimal string. Throws a PadronFormatError listing every problem, each naming its key path,
 * e.g. `Salta rate table: CM.RA.P must be a percentage such as "1.5" (got "1,5")`.
 */
export function validateSaltaRates(data: unknown): SaltaRateTable {
  if (!validate(data)) throw new PadronFormatError(`Salta rate table: ${describeErrors(validate.errors ?? [], data)}`);
  const table = {} as Record<SaltaActivity, Record<SaltaRisk, Partial<Record<RegimeCode, string>>>>;
  for (const activity of ['CM', 'JU'] as const) {
    table[activity] = { RA: {}, RB: {}, SR: {} };
    for (const risk of ['RA', 'RB', 'SR'] as const) {
      for (const regime of ['P', 'R'] as const) {
        const value = data[activity][risk][regime];
        if (value === undefined) continue;
        const rate = readRate(String(value));
        if (rate === null) throw new PadronFormatError(`Salta rate table: ${activity}.${risk}.${regime} must be a percentage such as "1.5" (got ${JSON.stringify(value)})`);
        table[activity][risk][regime] = rate;
      }
    }
  }
  return table;
}

function describeErrors(errors: ErrorObject[], data: unknown): string {
  const messages = new Set<string>();
  let missing = false;
  for (const error of errors) {
    const path = error.instancePath.split('/').filter(Boolean).join('.');
    const where = path === '' ? 'the table' : path;
    switch (error.keyword) {
      case 'required':
        messages.add(`${where} is missing ${String(error.params['missingProperty'])}`);
        missing = true;
        break;
      case 'additionalProperties':
        messages.add(`${where} has an unknown key ${String(error.params['additionalProperty'])} (activities CM, JU; risk levels RA, RB, SR; regimes P, R)`);
        break;
      case 'minProperties':
        messages.add(`${where} needs a rate for P, R or both`);
        break;
      case 'type':
        if (error.schemaPath.includes('anyOf')) break; // reported once by the anyOf below
        messages.add(`${where} must be an object`);
        break;
      default:
        messages.add(`${where} must be a percentage such as "1.5" (got ${JSON.stringify(valueAt(data, path))})`);
    }
  }
  const text = [...messages].join('; ');
  return missing ? `${text} (the table needs CM and JU, each with RA, RB and SR)` : text;
}

function valueAt(data: unknown, path: string): unknown {
  let value: unknown = data;
  for (const key of path.split('.').filter(Boolean)) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}
