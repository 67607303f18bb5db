/**
 * Rate fields as exact decimal strings with a dot (`02,75` → `2.75`, `2,5` → `2.5`, `2` → `2`),
 * never floats, so PostgreSQL `numeric` gets what the agency wrote. Memoized like the dates: a
 * padrón uses a few dozen distinct rates.
 */
export type RateReader = (field: string) => string | null;

const INVALID = '';
const CACHE_LIMIT = 4096;

/**
 * A reader for one decimal separator. Accepts digits with at most one separator, either side
 * may be empty but not both (`,5`, `2,` are read as 0.5 and 2); the value must be a percentage,
 * at most 100.
 */
export function createRateReader(separator: ',' | '.'): RateReader {
  const cache = new Map<string, string>();
  return (field) => {
    let result = cache.get(field);
    if (result === undefined) {
      if (cache.size >= CACHE_LIMIT) cache.clear();
      result = normalizeRate(field, separator);
      cache.set(field, result);
    }
    return result === INVALID ? null : result;
  };
}

function normalizeRate(field: string, separator: string): string {
  const at = field.indexOf(separator);
  const integerPart = at === -1 ? field : field.slice(0, at);
  const fraction = at === -1 ? '' : field.slice(at + 1);
  if (!digitsOnly(integerPart) || !digitsOnly(fraction) || integerPart.length + fraction.length === 0) return INVALID;
  const integer = integerPart.replace(/^0+(?=\d)/, '') || '0';
  if (integer.length > 3 || Number(integer) > 100 || (integer === '100' && /[1-9]/.test(fraction))) return INVALID;
  return fraction === '' ? integer : `${integer}.${fraction}`;
}

function digitsOnly(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}
