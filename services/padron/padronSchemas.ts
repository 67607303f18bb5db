import { readdirSync, readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { ajv, schemaValidator } from '#shared/schemaValidator.ts';
import type { PadronLoadedData } from './padron.ts';

const SCHEMAS = new URL('../../schemas/', import.meta.url);

/** The padrón API schemas (`schemas/padron/*.json`) by title, as read from disk: the OpenAPI document is built from them. */
export const padronApiSchemas: Readonly<Record<string, Record<string, unknown>>> = Object.fromEntries(
  readdirSync(new URL('padron/', SCHEMAS))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const schema = JSON.parse(readFileSync(new URL(`padron/${file}`, SCHEMAS), 'utf8')) as Record<string, unknown>;
      return [String(schema['title']), schema];
    }),
);

// Registered once on the shared ajv so `$ref`s resolve and the event schema sits beside EventMetadata.
for (const schema of Object.values(padronApiSchemas)) if (!ajv.getSchema(String(schema['$id']))) ajv.addSchema(schema);
const eventPath = 'events/PadronLoaded.v1.json';
if (!ajv.getSchema(`https://forja.invalid/schemas/${eventPath}`)) ajv.addSchema(JSON.parse(readFileSync(new URL(eventPath, SCHEMAS), 'utf8')) as object);

/** Validates a PadronLoaded event's data before it is appended. */
export const validPadronLoaded: ValidateFunction<PadronLoadedData> = schemaValidator<PadronLoadedData>(eventPath);

/** The compiled validator of `schemas/padron/<title>.v1.json`. */
export function padronApiValidator<T>(title: string): ValidateFunction<T> {
  return schemaValidator<T>(`padron/${title}.v1.json`);
}
