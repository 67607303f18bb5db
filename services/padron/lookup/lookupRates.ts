import type { Pool } from '#shared/db.ts';
import { aliquotFragment, findFirst, periodFragment, type LoadIndex } from './compactIndex.ts';
import type { RegistryView } from './registry.ts';
import type { CuitKey, LookupFilters } from './requestTerms.ts';
import { resultFromIndex, resultFromRow, type SlotView } from './slotView.ts';

/** The view's slots the filters keep, still sorted by state then regime. */
export function filterSlots(view: RegistryView, filters: LookupFilters): SlotView[] {
  if (filters.state === undefined && filters.regime === undefined) return view.slots;
  return view.slots.filter((slot) => (filters.state === undefined || slot.state === filters.state) && (filters.regime === undefined || slot.regime === filters.regime));
}

/** The JSON array of results of one CUIT, every slot being in memory: no I/O, no promise. */
export function ratesInMemory(slots: readonly SlotView[], cuit: CuitKey): string {
  let json = '';
  let searched: LoadIndex | undefined;
  let at = -1;
  for (const slot of slots) {
    const index = slot.index;
    if (!index) continue;
    // Slots are sorted by state then regime, so a load's P and R slots are neighbours: one search.
    if (index !== searched) {
      searched = index;
      at = findFirst(index, cuit.value);
    }
    const result = resultFromIndex(slot, index, cuit.value, cuit.text, at);
    if (result !== '') json = json === '' ? result : `${json},${result}`;
  }
  return `[${json}]`;
}

interface RateRow {
  load_id: number;
  cuit: number;
  regime: string;
  aliquot: string;
  date_from: string | null;
  date_to: string | null;
}

/**
 * The JSON arrays of results of several CUITs, in their order. Slots in memory answer from their
 * index; the others (a `date` whose loads are not today's) from one query for all of them, a named
 * statement so PostgreSQL plans it once per connection.
 */
export async function ratesOf(pool: Pool, slots: readonly SlotView[], cuits: readonly CuitKey[]): Promise<string[]> {
  const fromDatabase = slots.filter((slot) => slot.index === undefined);
  if (fromDatabase.length === 0) return cuits.map((cuit) => ratesInMemory(slots, cuit));
  const loadIds = [...new Set(fromDatabase.map((slot) => slot.load.loadId))];
  const { rows } = await pool.query<RateRow>({ name: `padron.rates_of_${loadIds.length}`, text: ratesOfStatement(loadIds.length), values: [cuits.map((cuit) => cuit.text), ...loadIds] });
  const byKey = new Map(rows.map((row) => [`${row.load_id}:${row.cuit}:${row.regime}`, row]));
  return cuits.map((cuit) => {
    const results: string[] = [];
    for (const slot of slots) {
      if (slot.index) {
        const result = resultFromIndex(slot, slot.index, cuit.value, cuit.text);
        if (result !== '') results.push(result);
        continue;
      }
      const row = byKey.get(`${slot.load.loadId}:${cuit.value}:${slot.regime}`);
      if (row) results.push(resultFromRow(slot, cuit.text, aliquotFragment(row.aliquot), periodFragment(row.date_from, row.date_to)));
    }
    return `[${results.join(',')}]`;
  });
}

/**
 * One branch per load, each `load_id = $n`: with a scalar parameter PostgreSQL prunes the other
 * partitions when the cached generic plan starts (with `load_id = any($1)` it probes them all).
 * One statement text per number of loads, so a handful of named statements cover every date.
 */
function ratesOfStatement(loads: number): string {
  return Array.from(
    { length: loads },
    (_, i) => `select load_id, cuit, regime, aliquot::text as aliquot, date_from::text as date_from, date_to::text as date_to
     from padron.rates where load_id = $${i + 2}::integer and cuit = any($1::bigint[])`,
  ).join(' union all ');
}
