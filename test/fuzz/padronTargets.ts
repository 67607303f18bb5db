import fc from 'fast-check';
import type { FuzzRequest, FuzzResponse } from '#test/support/fuzzClient.ts';
import { jsonMutation, mutateJson, type JsonMutation } from '#test/support/jsonMutations.ts';
import { schemaArbitrary, type JsonSchema } from '#test/support/schemaArbitrary.ts';
import { pathSegment, queryString, type QueryParam } from '#test/support/urlArbitraries.ts';

interface Parameter {
  name: string;
  in: string;
  schema?: { enum?: string[]; format?: string };
}

/** The padrón service's OpenAPI document, as far as the fuzz reads it. */
export interface PadronOpenApi {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  components: { schemas: Record<string, JsonSchema> };
}

export interface PadronCase {
  method: string;
  params: Record<string, string>;
  query: string;
  headers: Record<string, string>;
  value: unknown;
  mutation: JsonMutation;
}

export interface PadronTarget {
  name: string;
  method: string;
  /** OpenAPI path syntax (`{cuit}`). */
  path: string;
  weight: number;
  arbitrary: fc.Arbitrary<PadronCase>;
  /** Whether this answer must be JSON: lookups, health and the document always; downloads when refused. */
  json(res: FuzzResponse): boolean;
}

const DATES = ['2026-01-01', '2026-02-30', '1900-01-01', '9999-12-31', '0000-00-00', 'today', '2026-1-1', '', '2026-01-01T00:00:00Z', '20260101'];
const RANGES = ['bytes=0-10', 'bytes=-5', 'bytes=999999999-', 'bytes=5-1', 'bytes=0-1,2-3', 'items=0-1', 'bytes=', 'bytes=-0', 'garbage'];
const ETAGS = ['*', '"x"', 'W/"x"', '', '"', ',,,', 'W/'];

/** Request headers the lookups and downloads read: conditional GETs, ranges, forwarded addresses. */
const headers = fc.record(
  { 'if-none-match': fc.constantFrom(...ETAGS), range: fc.constantFrom(...RANGES), 'if-range': fc.constantFrom(...ETAGS, 'Wed, 21 Oct 2015 07:28:00 GMT'), 'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage', '::1, 10.0.0.1', '') },
  { requiredKeys: [] },
);

/** Every operation of the padrón's OpenAPI document, plus the document and the documentation page. */
export function padronTargets(openApi: PadronOpenApi, cuits: readonly string[]): PadronTarget[] {
  const resolve = (ref: string) => {
    const schema = openApi.components.schemas[ref.replace('#/components/schemas/', '')];
    if (!schema) throw new Error(`the padrón OpenAPI document has no ${ref}`);
    return schema;
  };
  const cuitForms = cuits.flatMap((cuit) => [cuit, `${cuit.slice(0, 2)}-${cuit.slice(2, 10)}-${cuit.slice(10)}`, `${cuit.slice(0, 2)}%20${cuit.slice(2)}`]);
  const operations = Object.entries(openApi.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })));
  const extras = ['/openapi.json', '/docs', '/docs/', '/docs/swagger-initializer.js'].map((path) => ({ path, method: 'GET', operation: {} as { parameters?: Parameter[]; requestBody?: undefined } }));
  return [...operations, ...extras].map(({ path, method, operation }) => {
    const parameters = operation.parameters ?? [];
    const pathParams = Object.fromEntries(
      parameters.filter((param) => param.in === 'path').map((param) => [param.name, pathSegment(param.name === 'cuit' ? cuitForms : (param.schema?.enum ?? ['x']))]),
    );
    const query: QueryParam[] = parameters.filter((param) => param.in === 'query').map((param) => ({ name: param.name, values: param.schema?.enum ?? (param.schema?.format === 'date' ? DATES : []) }));
    const schema = operation.requestBody?.content['application/json']?.schema;
    const lookup = path.startsWith('/padron/cuit');
    const arbitrary = fc.record({
      method: fc.oneof({ weight: 19, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS') }),
      params: fc.record(pathParams),
      query: schema ? fc.constant('') : queryString(query),
      headers,
      value: schema ? withCuits(schemaArbitrary(schema, resolve), cuitForms) : fc.constant(undefined),
      mutation: schema ? jsonMutation : fc.constant<JsonMutation>({ kind: 'valid' }),
    });
    const json = (res: FuzzResponse) => {
      if (path.startsWith('/padron/download')) return res.status >= 400;
      return lookup || path === '/health' || path === '/openapi.json';
    };
    return { name: `${method} ${path}`, method, path, weight: schema ? 4 : lookup ? 4 : path.startsWith('/padron/download') ? 1 : 0.3, arbitrary, json };
  });
}

/** Batch bodies: the schema's, their `cuits` partly real ones so the lookup finds rates. */
function withCuits(bodies: fc.Arbitrary<unknown>, cuits: readonly string[]): fc.Arbitrary<unknown> {
  return fc.tuple(bodies, fc.array(fc.constantFrom(...cuits), { maxLength: 5 })).map(([body, real]) => {
    if (typeof body !== 'object' || body === null || !Array.isArray((body as { cuits?: unknown }).cuits)) return body;
    return { ...body, cuits: [...(body as { cuits: unknown[] }).cuits, ...real] };
  });
}

/** The request a case stands for. */
export function requestOf(target: PadronTarget, plan: PadronCase): FuzzRequest {
  const path = target.path.replace(/\{(\w+)\}/g, (_match, param: string) => plan.params[param] ?? '') + plan.query;
  const raw = target.method === 'POST' && plan.method !== 'GET' && plan.method !== 'HEAD' ? mutateJson(plan.value, plan.mutation) : undefined;
  return { method: plan.method, path, headers: { ...plan.headers, ...raw?.headers }, ...(raw ? { body: raw.body } : {}) };
}
