import { padronApiSchemas } from '../padronSchemas.ts';
import { MAX_BATCH } from './batchLookup.ts';

const STATES = ['A', 'B', 'C', 'E', 'S', 'T', 'X'];
const json = (schema: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } });
const error = (description: string) => ({ description, content: json('Error') });
const rateLimited = {
  description: 'Too many requests from this address',
  headers: {
    'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the window resets' },
    'RateLimit-Limit': { schema: { type: 'integer' } },
    'RateLimit-Remaining': { schema: { type: 'integer' } },
    'RateLimit-Reset': { schema: { type: 'integer' } },
  },
  content: json('Error'),
};
const stateParam = (where: 'query' | 'path') => ({ name: 'state', in: where, required: where === 'path', schema: { type: 'string', enum: STATES }, description: 'Jurisdiction code' });
const filters = [
  stateParam('query'),
  { name: 'regime', in: 'query', schema: { type: 'string', enum: ['P', 'R'] }, description: 'P perception, R withholding' },
  { name: 'date', in: 'query', schema: { type: 'string', format: 'date' }, description: 'Day whose loads answer (YYYY-MM-DD); today when absent' },
];

/** JSON Schema file → OpenAPI component: `$ref`s between files point at components instead. */
function component(schema: Record<string, unknown>): unknown {
  const text = JSON.stringify(schema, (key, value: unknown) => (key === '$id' || key === '$schema' ? undefined : value));
  return JSON.parse(text.replace(/"\$ref":"([A-Za-z]+)\.v1\.json"/g, '"$ref":"#/components/schemas/$1"'));
}

/** The OpenAPI 3.1 document of the lookup service, built from `schemas/padron/*.json`. */
export function openApiDocument(): unknown {
  const download = {
    description: "Today's loads as a gzip CSV (state,cuit,regime,aliquot,date_from,date_to,last_update); not rate limited, but capped in downloads at once",
    headers: { ETag: { schema: { type: 'string' }, description: 'Strong: resumes with Range and If-Range' }, 'Accept-Ranges': { schema: { type: 'string' } } },
    content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
  };
  const downloadResponses = {
    200: download,
    206: { description: 'The requested byte range (Range, optionally If-Range)', content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } } },
    304: { description: 'Not modified' },
    416: error('The range is outside the file'),
    503: {
      description: 'Too many downloads in progress (from this address, or overall), or the database is unavailable to build the file',
      headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before trying again' } },
      content: json('Error'),
    },
  };
  return {
    openapi: '3.1.0',
    info: { title: 'Forja padrón lookup', version: '1.0.0', description: 'Argentine gross-income (IIBB) perception and withholding rates by CUIT, from the provinces’ registry files. Public; rate limited per client IP.' },
    paths: {
      '/padron/cuit/{cuit}': {
        get: {
          summary: 'Rates of one CUIT',
          parameters: [
            { name: 'cuit', in: 'path', required: true, schema: { type: 'string' }, description: '11 digits; hyphens and spaces are accepted' },
            ...filters,
            { name: 'If-None-Match', in: 'header', schema: { type: 'string' }, description: 'ETag of an earlier answer' },
          ],
          responses: {
            200: { description: 'The rates, sorted by state then regime; empty when none', headers: { ETag: { schema: { type: 'string' } } }, content: json('CuitLookup') },
            304: { description: 'Not modified: If-None-Match matched' },
            400: error('Not 11 digits, or an unknown state, regime or date'),
            429: rateLimited,
          },
        },
      },
      '/padron/cuits': {
        post: {
          summary: `Rates of up to ${MAX_BATCH} CUITs`,
          requestBody: { required: true, content: json('CuitsBatchRequest') },
          responses: {
            200: { description: 'Rates keyed by normalized CUIT; invalid entries listed', content: json('CuitsBatchResponse') },
            400: error(`Not JSON, "cuits" missing or not an array of strings, more than ${MAX_BATCH} entries, or a bad filter`),
            413: error('Body larger than 64 KiB'),
            429: rateLimited,
          },
        },
      },
      '/padron/download': { get: { summary: 'Full registry download', responses: downloadResponses } },
      '/padron/download/{state}': {
        get: { summary: "One jurisdiction's registry download", parameters: [stateParam('path')], responses: { ...downloadResponses, 400: error('Unknown state') } },
      },
      '/health': { get: { summary: 'Liveness and database reachability', responses: { 200: { description: 'Up', content: json('Health') }, 503: error('Database unreachable') } } },
      '/metrics': { get: { summary: 'Prometheus metrics', responses: { 200: { description: 'Text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
    },
    components: { schemas: Object.fromEntries(Object.entries(padronApiSchemas).map(([title, schema]) => [title, component(schema)])) },
  };
}
