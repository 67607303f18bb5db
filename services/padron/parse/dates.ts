/**
 * Date fields normalized to `YYYY-MM-DD`. The readers memoize: a padrón repeats the same few
 * publication and validity dates on every line, so after the first line a date costs a map hit.
 */
export type DateReader = (field: string) => string | null;

const INVALID = '';
const CACHE_LIMIT = 4096;

/**
 * `DDMMAAAA`, tolerating Santa Fe's dropped leading zero (`1052026` is 1 May 2026): a 7-digit
 * value is a number printed without padding, so the missing digit is the day's first.
 */
export function createDdmmyyyyReader(): DateReader {
  return memoize((field) => {
    const padded = field.length === 7 ? `0${field}` : field;
    if (padded.length !== 8) return INVALID;
    return isoDate(padded.slice(4, 8), padded.slice(2, 4), padded.slice(0, 2));
  });
}

/** Tucumán's `AAAAMMDD`. */
export function createYyyymmddReader(): DateReader {
  return memoize((field) => (field.length === 8 ? isoDate(field.slice(0, 4), field.slice(4, 6), field.slice(6, 8)) : INVALID));
}

/** Salta's `DD-MM-YYYY` (from a file name); null when it is not a real date. */
export function readDashedDdmmyyyy(text: string): string | null {
  const parts = text.split('-');
  if (parts.length !== 3) return null;
  const [day = '', month = '', year = ''] = parts;
  return isoDate(year, month.padStart(2, '0'), day.padStart(2, '0')) || null;
}

function isoDate(year: string, month: string, day: string): string {
  if (!allDigits(year) || !allDigits(month) || !allDigits(day) || year.length !== 4) return INVALID;
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  if (y < 1900 || y > 2199 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return INVALID;
  return `${year}-${month}-${day}`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function allDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return text.length > 0;
}

function memoize(read: (field: string) => string): DateReader {
  const cache = new Map<string, string>();
  return (field) => {
    let result = cache.get(field);
    if (result === undefined) {
      if (cache.size >= CACHE_LIMIT) cache.clear();
      result = read(field);
      cache.set(field, result);
    }
    return result === INVALID ? null : result;
  };
}
