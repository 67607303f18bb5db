import type { IncomingMessage, ServerResponse } from 'node:http';
import { filterSlots, ratesOf } from '../lookup/lookupRates.ts';
import { BadLookupRequest, kindOf, normalizeCuit, parseFilters, type CuitKey } from '../lookup/requestTerms.ts';
import type { LookupContext } from './lookupContext.ts';
import { clientAddress } from './rateLimit.ts';
import { sendDetail, sendJson } from './respond.ts';

export const BATCH_PATH = '/padron/cuits';
export const MAX_BATCH = 500;
/** 500 CUITs with hyphens and JSON quoting are under 12 KiB; 64 KiB leaves room for spaces. */
const MAX_BODY_BYTES = 64 * 1024;

/** `POST /padron/cuits`, on the plain node:http path like the single lookup. */
export function handleBatchLookup(req: IncomingMessage, res: ServerResponse, context: LookupContext): void {
  const started = performance.now();
  const done = (status: number) => context.metrics.observe('cuits', status, started);
  if (req.method !== 'POST') {
    sendDetail(res, 405, `method ${req.method ?? '?'} not allowed on ${BATCH_PATH}; use POST`, { allow: 'POST' });
    return done(405);
  }
  const limit = context.rateLimit.take(clientAddress(req, context.trustedHops));
  if (!limit.allowed) {
    req.resume();
    sendDetail(res, 429, 'too many requests from this address; retry after the number of seconds in Retry-After', limit.headers);
    return done(429);
  }
  readBody(req).then(
    async (body) => {
      if (body === undefined) {
        sendDetail(res, 413, `the body is larger than ${MAX_BODY_BYTES / 1024} KiB`, { ...limit.headers, connection: 'close' });
        return done(413);
      }
      let request;
      try {
        request = parseBatch(body);
      } catch (error) {
        // Anything but a refusal is our bug, not the database's: say so rather than 503.
        if (!(error instanceof BadLookupRequest)) {
          context.logger.error({ err: error }, 'padrón batch request could not be read');
          sendDetail(res, 500, 'internal error', limit.headers);
          return done(500);
        }
        sendDetail(res, 400, error.message, limit.headers);
        return done(400);
      }
      const view = context.registry.viewFor(request.filters.date);
      const slots = filterSlots(view, request.filters);
      const rates = await ratesOf(context.pool, slots, request.cuits);
      let results = '';
      for (let i = 0; i < request.cuits.length; i++) results += `${i === 0 ? '' : ','}"${request.cuits[i]?.text ?? ''}":${rates[i] ?? '[]'}`;
      sendJson(res, 200, `{"results":{${results}},"invalid":${JSON.stringify(request.invalid)}}`, limit.headers);
      context.metrics.lookedUp(slots.every((slot) => slot.index !== undefined) ? 'memory' : 'database', request.cuits.length);
      return done(200);
    },
  ).catch((error: unknown) => {
    context.logger.error({ err: error }, 'padrón batch lookup failed');
    if (!res.headersSent) sendDetail(res, 503, 'the registry database is unavailable; try again shortly', limit.headers);
    done(503);
  });
}

/** The body as text, or undefined when it is too large (the rest is not read). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

interface BatchRequest {
  cuits: CuitKey[];
  invalid: string[];
  filters: ReturnType<typeof parseFilters>;
}

/** Checks the body; valid CUITs collapse to one entry each, invalid entries are listed as sent. */
export function parseBatch(body: string): BatchRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new BadLookupRequest('the body must be JSON: {"cuits": ["20-12345678-6", …], "state"?, "regime"?, "date"?}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BadLookupRequest('the body must be a JSON object with a "cuits" array');
  const { cuits, state, regime, date } = parsed as Record<string, unknown>;
  if (cuits === undefined) throw new BadLookupRequest('"cuits" is required: an array of up to 500 CUITs');
  if (!Array.isArray(cuits)) throw new BadLookupRequest('"cuits" must be an array of CUIT strings');
  if (cuits.length > MAX_BATCH) throw new BadLookupRequest(`at most ${MAX_BATCH} CUITs per request (got ${cuits.length}); split the list`);
  const filters = parseFilters(state, regime, date);
  const valid = new Map<string, CuitKey>();
  const invalid = new Set<string>();
  for (const [at, entry] of cuits.entries()) {
    // The schema's items are strings: anything else is a malformed request, not a malformed CUIT.
    if (typeof entry !== 'string') throw new BadLookupRequest(`"cuits" must hold only strings: entry ${at} is ${kindOf(entry)}`);
    const key = normalizeCuit(entry);
    if (key) valid.set(key.text, key);
    else invalid.add(entry);
  }
  return { cuits: [...valid.values()], invalid: [...invalid], filters };
}
