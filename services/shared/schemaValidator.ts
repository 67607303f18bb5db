import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const SCHEMA_FILES = ['events/EventMetadata.v1.json', 'messages/WorkMessage.v1.json'];

/** One ajv for every JSON Schema in `schemas/`, so `$ref`s between them resolve. */
export const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
for (const file of SCHEMA_FILES) {
  ajv.addSchema(JSON.parse(readFileSync(new URL(`../../schemas/${file}`, import.meta.url), 'utf8')) as object);
}

const BASE = 'https://forja.invalid/schemas/';

/** The compiled validator of `schemas/<path>`, e.g. `events/EventMetadata.v1.json`. */
export function schemaValidator<T>(path: string): ValidateFunction<T> {
  const validate = ajv.getSchema<T>(`${BASE}${path}`);
  if (!validate) throw new Error(`no JSON Schema ${path} in schemas/`);
  return validate;
}

/** `loc: msg` lines of the last validation, for error messages. */
export function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`).join('; ');
}
