import fc from 'fast-check';

/** The part of JSON Schema (draft-07) that `schemas/api` and `schemas/padron` use. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
}

/** Finds the schema a `$ref` names (`RateResult.v1.json`: a file next to the referring one). */
export type RefResolver = (ref: string) => JsonSchema;

/** Arrays and free strings stay short: the mutations, not the valid values, make the big inputs. */
const MAX_ARRAY = 8;
const MAX_STRING = 40;

/**
 * Values that mostly satisfy `schema`: enums, formats, required properties, lengths and (when
 * fast-check can generate from it) the pattern. A pattern it cannot generate from (look-arounds,
 * several under `allOf`) falls back to strings within the lengths, so some values are refused:
 * that is fine for a fuzzer, whose mutations refuse most of them anyway.
 */
export function schemaArbitrary(schema: JsonSchema, resolve: RefResolver): fc.Arbitrary<unknown> {
  if (schema.$ref) return schemaArbitrary(resolve(schema.$ref), resolve);
  if (schema.allOf) return schemaArbitrary(mergeAllOf(schema), resolve);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['string', 'number', 'boolean', 'null', 'array', 'object'];
  return fc.oneof(...types.map((type) => ofType(type, schema, resolve)));
}

function ofType(type: string, schema: JsonSchema, resolve: RefResolver): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? schemaArbitrary(schema.items, resolve) : fc.jsonValue(), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? MAX_ARRAY, MAX_ARRAY)),
      });
    case 'object':
      return objectArbitrary(schema, resolve);
    default:
      throw new Error(`schemaArbitrary: no generator for type ${type}`);
  }
}

function objectArbitrary(schema: JsonSchema, resolve: RefResolver): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, schemaArbitrary(property, resolve)]));
  const known = fc.record(model, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) });
  const extra = schema.additionalProperties;
  if (extra === false || extra === undefined) return known;
  const values = extra === true ? fc.jsonValue() : schemaArbitrary(extra, resolve);
  return fc.tuple(known, fc.dictionary(fc.string({ maxLength: 10 }), values, { maxKeys: 3 })).map(([fields, more]) => ({ ...more, ...fields }));
}

/** One schema out of `allOf` and its own keywords; a second pattern makes the pattern unknown (see stringArbitrary). */
function mergeAllOf({ allOf = [], ...own }: JsonSchema): JsonSchema {
  const merged: JsonSchema = { ...own };
  for (const part of allOf) {
    const patterns = [merged.pattern, part.pattern].filter((pattern) => pattern !== undefined);
    Object.assign(merged, part);
    if (patterns.length > 1) merged.pattern = '(several)';
  }
  return merged;
}

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  uuid: () => fc.uuid(),
  email: () => fc.emailAddress(),
  date: () => fc.date({ min: new Date('1990-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)),
  'date-time': () => fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
};

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const format = schema.format ? FORMATS[schema.format] : undefined;
  if (format) return format();
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_STRING, MAX_STRING));
  const fitting = (text: string) => text.length >= minLength && text.length <= (schema.maxLength ?? Infinity);
  const matching = schema.pattern ? patternArbitrary(schema.pattern) : undefined;
  // Words are what real names look like (and what gets past validation); any grapheme is what a fuzzer owes.
  const words = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/).filter((text) => text.length <= maxLength);
  const anything = fc.string({ unit: 'grapheme', minLength, maxLength });
  const free = fc.oneof({ arbitrary: words, weight: 2 }, { arbitrary: anything, weight: 1 });
  const chosen = matching ? fc.oneof({ arbitrary: matching, weight: 3 }, { arbitrary: free, weight: 1 }) : free;
  return chosen.map((text) => (fitting(text) ? text : text.padEnd(minLength, 'x').slice(0, Math.max(minLength, maxLength))));
}

/** Strings matching `pattern`, or undefined when fast-check cannot generate from it. */
function patternArbitrary(pattern: string): fc.Arbitrary<string> | undefined {
  try {
    const arbitrary = fc.stringMatching(new RegExp(pattern));
    fc.sample(arbitrary, 1);
    return arbitrary;
  } catch {
    return undefined;
  }
}
