import type { RegimeCode } from '../parse/padronRecord.ts';

/**
 * One published load held in memory for lookups, in typed arrays: a sorted Float64Array of CUITs
 * (11 digits fit a double exactly) with parallel arrays for the regime and two small dictionaries,
 * the rate and the validity period, kept as ready-made JSON fragments because a padrón has a few
 * dozen distinct rates and periods. About 13 bytes a rate: three million rates in ~40 MB, no
 * object per row, nothing for the garbage collector to walk.
 */
export interface LoadIndex {
  loadId: number;
  size: number;
  /** Sorted by CUIT, then regime (P before R). */
  cuits: Float64Array;
  /** 0 = P, 1 = R. */
  regimes: Uint8Array;
  aliquots: Uint16Array;
  periods: Uint16Array;
  /** `aliquots[i]` → the rate as a JSON number, e.g. `2.5`. */
  aliquotJson: string[];
  /** `periods[i]` → `"date_from":"2026-11-01","date_to":"2026-11-30"` (or nulls). */
  periodJson: string[];
  /**
   * Where each CUIT range starts: `buckets[k]` is the first position whose CUIT is at least
   * `cuits[0] + k * bucketWidth`. A lookup jumps to its bucket and searches only that, a few
   * neighbouring entries, instead of halving a million-entry array (twenty steps, most of them
   * cache misses, times every jurisdiction on every request).
   */
  buckets: Uint32Array;
  bucketWidth: number;
}

export const REGIME_OF_BIT: readonly RegimeCode[] = ['P', 'R'];

/** First position whose CUIT is `cuit`, or -1. */
export function findFirst(index: LoadIndex, cuit: number): number {
  const { cuits, size } = index;
  const first = cuits[0] ?? 0;
  if (size === 0 || cuit < first || cuit > (cuits[size - 1] ?? 0)) return -1;
  const bucket = Math.floor((cuit - first) / index.bucketWidth);
  let low = index.buckets[bucket] ?? 0;
  let high = index.buckets[bucket + 1] ?? size;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((cuits[middle] ?? 0) < cuit) low = middle + 1;
    else high = middle;
  }
  return low < size && cuits[low] === cuit ? low : -1;
}

/** The bucket table of sorted `cuits`: about one bucket per two entries. */
function bucketsOf(cuits: Float64Array): { buckets: Uint32Array; bucketWidth: number } {
  const size = cuits.length;
  const first = cuits[0] ?? 0;
  const span = (cuits[size - 1] ?? 0) - first + 1;
  const count = Math.max(1, Math.ceil(size / 2));
  const bucketWidth = Math.max(1, Math.ceil(span / count));
  const buckets = new Uint32Array(count + 1);
  let at = 0;
  for (let bucket = 0; bucket <= count; bucket++) {
    const start = first + bucket * bucketWidth;
    while (at < size && (cuits[at] ?? 0) < start) at++;
    buckets[bucket] = at;
  }
  return { buckets, bucketWidth };
}

/** The JSON fragment of a validity period. */
export function periodFragment(dateFrom: string | null, dateTo: string | null): string {
  return `"date_from":${dateFrom === null ? 'null' : `"${dateFrom}"`},"date_to":${dateTo === null ? 'null' : `"${dateTo}"`}`;
}

/** A rate as PostgreSQL prints `numeric` (`6.00`, `2.5`) → the JSON number (`6`, `2.5`). */
export function aliquotFragment(text: string): string {
  return String(Number(text));
}

/**
 * Fills a LoadIndex from rows arriving in key order. Capacity is the row count the load row
 * recorded; it grows if the table holds more, so a wrong count costs a copy, not a wrong answer.
 */
export class LoadIndexBuilder {
  private size = 0;
  private cuits: Float64Array;
  private regimes: Uint8Array;
  private aliquots: Uint16Array;
  private periods: Uint16Array;
  private readonly aliquotIds = new Map<string, number>();
  private readonly periodIds = new Map<string, number>();
  private lastCuit = -1;
  private lastRegime = -1;

  constructor(
    private readonly loadId: number,
    capacity: number,
  ) {
    const initial = Math.max(capacity, 16);
    this.cuits = new Float64Array(initial);
    this.regimes = new Uint8Array(initial);
    this.aliquots = new Uint16Array(initial);
    this.periods = new Uint16Array(initial);
  }

  add(cuit: number, regime: RegimeCode, aliquot: string, dateFrom: string | null, dateTo: string | null): void {
    const regimeBit = regime === 'P' ? 0 : 1;
    if (cuit < this.lastCuit || (cuit === this.lastCuit && regimeBit <= this.lastRegime)) {
      throw new Error(`load ${this.loadId}: rows out of key order at CUIT ${cuit}`);
    }
    this.lastCuit = cuit;
    this.lastRegime = regimeBit;
    if (this.size === this.cuits.length) this.grow();
    const at = this.size++;
    this.cuits[at] = cuit;
    this.regimes[at] = regimeBit;
    this.aliquots[at] = idOf(this.aliquotIds, aliquot, 'rates');
    this.periods[at] = idOf(this.periodIds, dateFrom === null && dateTo === null ? '' : `${dateFrom ?? ''}|${dateTo ?? ''}`, 'validity periods');
  }

  finish(): LoadIndex {
    const periodJson: string[] = [];
    for (const [key, id] of this.periodIds) {
      const [from = '', to = ''] = key.split('|');
      periodJson[id] = periodFragment(from || null, to || null);
    }
    const aliquotJson: string[] = [];
    for (const [text, id] of this.aliquotIds) aliquotJson[id] = aliquotFragment(text);
    const cuits = this.cuits.subarray(0, this.size);
    return {
      loadId: this.loadId,
      size: this.size,
      cuits,
      ...bucketsOf(cuits),
      regimes: this.regimes.subarray(0, this.size),
      aliquots: this.aliquots.subarray(0, this.size),
      periods: this.periods.subarray(0, this.size),
      aliquotJson,
      periodJson,
    };
  }

  private grow(): void {
    const grown = <T extends Float64Array | Uint8Array | Uint16Array>(array: T, make: (length: number) => T): T => {
      const next = make(array.length * 2);
      next.set(array);
      return next;
    };
    this.cuits = grown(this.cuits, (length) => new Float64Array(length));
    this.regimes = grown(this.regimes, (length) => new Uint8Array(length));
    this.aliquots = grown(this.aliquots, (length) => new Uint16Array(length));
    this.periods = grown(this.periods, (length) => new Uint16Array(length));
  }
}

function idOf(ids: Map<string, number>, key: string, what: string): number {
  let id = ids.get(key);
  if (id === undefined) {
    id = ids.size;
    if (id > 0xffff) throw new Error(`more than 65,536 distinct ${what} in one load`);
    ids.set(key, id);
  }
  return id;
}
