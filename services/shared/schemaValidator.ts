import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

/** One ajv for every JSON Schema in `schemas/`, so `$ref`s between them resolve. */
export const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
/** Every `*.json` below `schemas/`, as `events/EventMetadata.v1.json` and so on. */
export const schemaFiles: readonly string[] = (readdirSync(SCHEMAS_DIR, { recursive: true }) as string[])
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.split('\\').join('/'))
  .sort();
for (const file of schemaFiles) ajv.addSchema(JSON.parse(readFileSync(`${SCHEMAS_DIR}${file}`, 'utf8')) as object);

/** The raw JSON Schema of `schemas/<path>`, for the OpenAPI documents. */
export function schemaDocument(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(`${SCHEMAS_DIR}${path}`, 'utf8')) as Record<string, unknown>;
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
