import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { filterSlots, ratesInMemory, ratesOf } from '../lookup/lookupRates.ts';
import { BadLookupRequest, filtersFromQuery, filtersKey, normalizeCuit, type CuitKey, type LookupFilters } from '../lookup/requestTerms.ts';
import type { SlotView } from '../lookup/slotView.ts';
import { AnswerCache } from './answerCache.ts';
import type { LookupContext } from './lookupContext.ts';
import type { AnswerRecorder, PadronMetrics } from './metrics.ts';
import { clientAddress } from './rateLimit.ts';
import { etagMatches, sendDetail } from './respond.ts';

export const SINGLE_PREFIX = '/padron/cuit/';

/**
 * `GET /padron/cuit/{cuit}`, on the plain node:http path (express's router costs ~6× per request,
 * PERFORMANCE.md). The ETag is the CUIT, the filters and the version of the loads that answer,
 * so a matching If-None-Match gets its 304 before any rate is read. Today's loads answer from
 * memory without a promise; another `date` may read the database.
 */
export function handleSingleLookup(req: IncomingMessage, res: ServerResponse, context: LookupContext): void {
  const started = performance.now();
  const { metrics } = context;
  const answered = recordersOf(metrics);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendDetail(res, 405, `method ${req.method ?? '?'} not allowed on ${SINGLE_PREFIX}{cuit}; use GET`, { allow: 'GET, HEAD' });
    return metrics.observe('cuit', 405, started);
  }
  const limit = context.rateLimit.take(clientAddress(req, context.trustedHops));
  if (!limit.allowed) {
    sendDetail(res, 429, 'too many requests from this address; retry after the number of seconds in Retry-After', limit.headers);
    return metrics.observe('cuit', 429, started);
  }
  const url = req.url ?? '';
  const queryAt = url.indexOf('?');
  const rawCuit = queryAt < 0 ? url.slice(SINGLE_PREFIX.length) : url.slice(SINGLE_PREFIX.length, queryAt);
  let filters;
  let cuit;
  try {
    cuit = normalizeCuit(rawCuit.includes('%') ? decodeURIComponent(rawCuit) : rawCuit);
    if (!cuit) throw new BadLookupRequest(`invalid CUIT ${JSON.stringify(safeDecode(rawCuit))}: it needs exactly 11 digits (hyphens and spaces are accepted)`);
    filters = queryAt < 0 ? NO_FILTERS : filtersFromQuery(url.slice(queryAt + 1));
  } catch (error) {
    const detail = error instanceof BadLookupRequest ? error.message : `invalid CUIT ${JSON.stringify(rawCuit)}: malformed percent-encoding`;
    sendDetail(res, 400, detail, limit.headers);
    return metrics.observe('cuit', 400, started);
  }
  const view = context.registry.viewFor(filters.date);
  const key = `${cuit.text}.${filtersKey(filters)}`;
  const cached = answers.get(view, key);
  const etag = cached ? cached.etag : `"${key}.${view.version}"`;
  if (etagMatches(req.headers['if-none-match'], etag)) {
    res.writeHead(304, lookupHeaders(etag, limit.headers));
    res.end();
    metrics.lookedUp('notModified');
    return answered.notModified.record(started);
  }
  if (cached) {
    sendLookup(res, cached.body, etag, limit.headers);
    metrics.lookedUp('memory');
    return answered.ok.record(started);
  }
  const slots = filterSlots(view, filters);
  if (view.inMemory || slots.every((slot) => slot.index !== undefined)) {
    const body = Buffer.from(`{"cuit":"${cuit.text}","results":${ratesInMemory(slots, cuit)}}`);
    if (view === context.registry.current) answers.set(view, key, { body, etag });
    sendLookup(res, body, etag, limit.headers);
    metrics.lookedUp('memory');
    return answered.ok.record(started);
  }
  answerFromDatabase(res, context, slots, cuit, etag, limit.headers, started);
}

const NO_FILTERS: LookupFilters = Object.freeze({});

/** One cache for the process: every service instance in it serves the same views of its own registry. */
const answers = new AnswerCache();

const boundRecorders = new WeakMap<PadronMetrics, { ok: AnswerRecorder; notModified: AnswerRecorder }>();

/** The recorders of the two answers nearly every lookup gets, bound once per metrics. */
function recordersOf(metrics: PadronMetrics): { ok: AnswerRecorder; notModified: AnswerRecorder } {
  let recorders = boundRecorders.get(metrics);
  if (!recorders) boundRecorders.set(metrics, (recorders = { ok: metrics.answer('cuit', 200), notModified: metrics.answer('cuit', 304) }));
  return recorders;
}

/** The response headers of a lookup: few, built in one literal (this runs tens of thousands of times a second). */
function lookupHeaders(etag: string, limitHeaders: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { etag, 'cache-control': 'no-cache' };
  for (const name in limitHeaders) headers[name] = limitHeaders[name];
  return headers;
}

function sendLookup(res: ServerResponse, body: Buffer | string, etag: string, limitHeaders: OutgoingHttpHeaders): void {
  const headers = lookupHeaders(etag, limitHeaders);
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  res.writeHead(200, headers);
  res.end(body);
}

/** A `date` whose loads are not in memory: one query for the slots that need it. */
function answerFromDatabase(res: ServerResponse, context: LookupContext, slots: SlotView[], cuit: CuitKey, etag: string, limitHeaders: OutgoingHttpHeaders, started: number): void {
  ratesOf(context.pool, slots, [cuit]).then(
    ([rates]) => {
      sendLookup(res, `{"cuit":"${cuit.text}","results":${rates ?? '[]'}}`, etag, limitHeaders);
      context.metrics.lookedUp('database');
      context.metrics.observe('cuit', 200, started);
    },
    (error: unknown) => {
      context.logger.error({ err: error }, 'padrón lookup failed');
      sendDetail(res, 503, 'the registry database is unavailable; try again shortly', limitHeaders);
      context.metrics.observe('cuit', 503, started);
    },
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
