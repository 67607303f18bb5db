/**
 * JSON Schema of Salta's rate table: for each activity (`CM` Convenio Multilateral, `JU` local)
 * and fiscal-risk level (`RA` alto, `RB` bajo, `SR` sin riesgo), the perception and/or
 * withholding rate as a percentage. Salta's risk file has no rates, so the table published by the
 * province is configuration the import needs.
 */
const rate = {
  anyOf: [
    { type: 'string', pattern: '^\\d{1,3}(\\.\\d+)?$' },
    { type: 'number', minimum: 0, maximum: 100 },
  ],
} as const;

const regimes = {
  type: 'object',
  properties: { P: rate, R: rate },
  additionalProperties: false,
  minProperties: 1,
} as const;

const riskLevels = {
  type: 'object',
  properties: { RA: regimes, RB: regimes, SR: regimes },
  required: ['RA', 'RB', 'SR'],
  additionalProperties: false,
} as const;

/** The whole table: both activities, each with the three risk levels. */
export const saltaRatesSchema = {
  $id: 'SaltaRates.v1',
  type: 'object',
  properties: { CM: riskLevels, JU: riskLevels },
  required: ['CM', 'JU'],
  additionalProperties: false,
} as const;
