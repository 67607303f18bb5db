/**
 * Dates and rates in PostgreSQL's binary format, memoized: a padrón repeats a few dozen distinct
 * values millions of times, so each costs one map hit after its first encoding. Both refuse
 * anything the text format would refuse, since a binary COPY would otherwise store garbage.
 */

const DAY_MS = 86_400_000;
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);
const CACHE_LIMIT = 4096;
const days = new Map<string, number>();
const numerics = new Map<string, Buffer>();

/** `YYYY-MM-DD` → days since 2000-01-01, what a binary `date` is. */
export function dateField(iso: string): number {
  let value = days.get(iso);
  if (value === undefined) {
    const ms = /^\d{4}-\d{2}-\d{2}$/.test(iso) ? Date.parse(`${iso}T00:00:00Z`) : Number.NaN;
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== iso) throw new Error(`not a date: ${JSON.stringify(iso)}`);
    value = (ms - POSTGRES_EPOCH_MS) / DAY_MS;
    if (days.size >= CACHE_LIMIT) days.clear();
    days.set(iso, value);
  }
  return value;
}

/**
 * A non-negative decimal (`6.00`, `0.5`, `100`) → a binary `numeric`: base-10000 digits around
 * the decimal point, a weight, and the display scale (so `6.00` reads back as `6.00`).
 */
export function numericField(decimal: string): Buffer {
  let value = numerics.get(decimal);
  if (value === undefined) {
    value = encodeNumeric(decimal);
    if (numerics.size >= CACHE_LIMIT) numerics.clear();
    numerics.set(decimal, value);
  }
  return value;
}

function encodeNumeric(decimal: string): Buffer {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!match) throw new Error(`not a decimal rate: ${JSON.stringify(decimal)}`);
  const integer = (match[1] ?? '').replace(/^0+/, '');
  const fraction = match[2] ?? '';
  const integerGroups = integer.padStart(Math.ceil(integer.length / 4) * 4, '0');
  const fractionGroups = fraction.padEnd(Math.ceil(fraction.length / 4) * 4, '0');
  const all = integerGroups + fractionGroups;
  let digits: number[] = [];
  for (let i = 0; i < all.length; i += 4) digits.push(Number(all.slice(i, i + 4)));
  let weight = integerGroups.length / 4 - 1;
  while (digits.length > 0 && digits[0] === 0) {
    digits = digits.slice(1);
    weight--;
  }
  while (digits.length > 0 && digits[digits.length - 1] === 0) digits.pop();
  if (digits.length === 0) weight = 0;
  const bytes = Buffer.alloc(8 + 2 * digits.length);
  bytes.writeInt16BE(digits.length, 0);
  bytes.writeInt16BE(weight, 2);
  bytes.writeUInt16BE(0, 4); // sign: positive
  bytes.writeInt16BE(fraction.length, 6);
  digits.forEach((digit, i) => bytes.writeInt16BE(digit, 8 + 2 * i));
  return bytes;
}
