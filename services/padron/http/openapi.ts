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
const unavailable = { description: 'The registry database is unavailable; try again shortly', content: json('Error') };
const methodNotAllowed = (allowed: string) => ({ description: `Another method than ${allowed}`, headers: { Allow: { schema: { type: 'string' }, description: `${allowed}` } }, content: json('Error') });
/** What any operation may answer beyond its listed statuses. */
const unexpected = { description: 'Any other answer: 500 for an unexpected error (logged, its text never sent)', content: json('Error') };
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
    412: error('If-Match or If-Unmodified-Since does not hold for the file'),
    416: error('The range is outside the file'),
    503: {
      description: 'Too many downloads in progress (from this address, or overall), or the database is unavailable to build the file',
      headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before trying again' } },
      content: json('Error'),
    },
    default: unexpected,
  };
  return {
    openapi: '3.1.0',
    info: { title: 'Forja padrón lookup', version: '1.0.0', description: 'Argentine gross-income (IIBB) perception and withholding rates by CUIT, from the provinces’ registry files. Public; rate limited per client IP.' },
    servers: [{ url: '/', description: 'This lookup service' }],
    // Public: no operation asks for credentials.
    security: [],
    tags: [
      { name: 'lookup', description: 'Rates by CUIT, one or a batch at a time (rate limited)' },
      { name: 'downloads', description: 'The whole registry as a file' },
      { name: 'operations', description: 'Health and metrics' },
    ],
    paths: {
      '/padron/cuit/{cuit}': {
        get: {
          operationId: 'getCuitRates',
          summary: 'Rates of one CUIT',
          tags: ['lookup'],
          parameters: [
            { name: 'cuit', in: 'path', required: true, schema: { type: 'string' }, description: '11 digits; hyphens and spaces are accepted' },
            ...filters,
            { name: 'If-None-Match', in: 'header', schema: { type: 'string' }, description: 'ETag of an earlier answer' },
          ],
          responses: {
            200: { description: 'The rates, sorted by state then regime; empty when none', headers: { ETag: { schema: { type: 'string' } } }, content: json('CuitLookup') },
            304: { description: 'Not modified: If-None-Match matched' },
            400: error('Not 11 digits, or an unknown state, regime or date'),
            405: methodNotAllowed('GET, HEAD'),
            429: rateLimited,
            503: unavailable,
            default: unexpected,
          },
        },
      },
      '/padron/cuits': {
        post: {
          operationId: 'postCuitsRates',
          summary: `Rates of up to ${MAX_BATCH} CUITs`,
          tags: ['lookup'],
          requestBody: { required: true, content: json('CuitsBatchRequest') },
          responses: {
            200: { description: 'Rates keyed by normalized CUIT; invalid entries listed', content: json('CuitsBatchResponse') },
            400: error(`Not JSON, "cuits" missing or not an array of strings, more than ${MAX_BATCH} entries, or a bad filter`),
            405: methodNotAllowed('POST'),
            413: error('Body larger than 64 KiB'),
            429: rateLimited,
            503: unavailable,
            default: unexpected,
          },
        },
      },
      '/padron/download': { get: { operationId: 'getDownload', summary: 'Full registry download', tags: ['downloads'], responses: downloadResponses } },
      '/padron/download/{state}': {
        get: { operationId: 'getStateDownload', summary: "One jurisdiction's registry download", tags: ['downloads'], parameters: [stateParam('path')], responses: { ...downloadResponses, 400: error('Unknown state') } },
      },
      '/health': {
        get: { operationId: 'getHealth', summary: 'Liveness and database reachability', tags: ['operations'], responses: { 200: { description: 'Up', content: json('Health') }, 503: error('Database unreachable'), default: unexpected } },
      },
      '/metrics': {
        get: { operationId: 'getMetrics', summary: 'Prometheus metrics', tags: ['operations'], responses: { 200: { description: 'Text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } }, default: unexpected } },
      },
    },
    components: { schemas: Object.fromEntries(Object.entries(padronApiSchemas).map(([title, schema]) => [title, component(schema)])) },
  };
}
