import { STATE_NAMES, type RegimeCode, type StateCode } from '../parse/padronRecord.ts';
import { isIsoDate } from '../time.ts';

/** A CUIT as the lookup reads it: its number (the index key) and its 11-digit text. */
export interface CuitKey {
  value: number;
  text: string;
}

/** The optional filters of both lookups. */
export interface LookupFilters {
  state?: StateCode;
  regime?: RegimeCode;
  date?: string;
}

/** Thrown for a request the spec answers with 400; the message is the response's `detail`. */
export class BadLookupRequest extends Error {
  override readonly name = 'BadLookupRequest';
}

/**
 * The CUIT in `text` if it is exactly 11 digits once hyphens and spaces are removed, else null.
 * Anything else in it (letters, dots) makes it invalid: the spec accepts hyphens and spaces only.
 */
export function normalizeCuit(text: string): CuitKey | null {
  if (text.length === 11 && isDigits(text)) return { value: Number(text), text };
  let digits = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) digits += text[i];
    else if (code !== 45 && code !== 32) return null;
  }
  return digits.length === 11 ? { value: Number(digits), text: digits } : null;
}

function isDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

const STATES = Object.keys(STATE_NAMES).sort().join(', ');

/** What a JSON value is, for error messages: `an array`, `an object`, `a number`, `null`… */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A value quoted in an error message. Arrays and objects are named by kind, never serialized:
 * JSON.stringify recurses, and a body nested 10,000 deep (JSON.parse takes it) overflows the stack.
 */
function shown(value: unknown): string {
  return typeof value === 'object' && value !== null ? `(${kindOf(value)})` : JSON.stringify(value);
}

/** Checks the three filters, each a string or absent (an empty value counts as absent). */
export function parseFilters(state: unknown, regime: unknown, date: unknown): LookupFilters {
  const filters: LookupFilters = {};
  if (state !== undefined && state !== '') {
    if (typeof state !== 'string' || !(state in STATE_NAMES)) throw new BadLookupRequest(`unknown state ${shown(state)}; one of ${STATES}`);
    filters.state = state as StateCode;
  }
  if (regime !== undefined && regime !== '') {
    if (regime !== 'P' && regime !== 'R') throw new BadLookupRequest(`unknown regime ${shown(regime)}; P (perception) or R (withholding)`);
    filters.regime = regime;
  }
  if (date !== undefined && date !== '') {
    if (typeof date !== 'string' || !isIsoDate(date)) throw new BadLookupRequest(`invalid date ${shown(date)}; a day as YYYY-MM-DD`);
    filters.date = date;
  }
  return filters;
}

/** The filters of a query string (`?state=C&regime=P&date=2026-11-01`); a filter given twice is refused. */
export function filtersFromQuery(query: string): LookupFilters {
  if (query === '') return {};
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(query);
  } catch {
    throw new BadLookupRequest('the query string is malformed');
  }
  const single = (name: string) => {
    const values = params.getAll(name);
    if (values.length > 1) throw new BadLookupRequest(`${name} given ${values.length} times; give it once`);
    return values[0];
  };
  return parseFilters(single('state'), single('regime'), single('date'));
}

/** Stable text of the filters for the ETag. */
export function filtersKey(filters: LookupFilters): string {
  return `${filters.state ?? '_'}${filters.regime ?? '_'}`;
}
