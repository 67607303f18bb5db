import type { RegimeCode, StateCode } from '../parse/padronRecord.ts';
import type { PublishedLoad } from '../storage/loads.ts';

/** The load that answers for one jurisdiction and regime on a given day. */
export interface Slot {
  state: StateCode;
  regime: RegimeCode;
  load: PublishedLoad;
}

/**
 * Which load answers for each jurisdiction and regime on `date` (`YYYY-MM-DD`): the newest load
 * whose validity contains the day; when none does, the newest that started before it, because
 * agencies publish days late and a lookup service blank on every 1st of the month helps no one
 * (its results still show their own dates). "Newest" is the latest start, then the latest load, so
 * a corrected file for the same month replaces the first one. Sorted by state, then regime.
 */
export function resolveSlots(loads: readonly PublishedLoad[], date: string): Slot[] {
  const best = new Map<string, { slot: Slot; covers: boolean }>();
  for (const load of loads) {
    if (load.validFrom !== null && load.validFrom > date) continue;
    const covers = load.validTo === null || load.validTo >= date;
    for (const regime of load.regimes) {
      const key = `${load.state}${regime}`;
      const current = best.get(key);
      if (!current || isBetter(load, covers, current.slot.load, current.covers)) best.set(key, { slot: { state: load.state, regime, load }, covers });
    }
  }
  return [...best.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, value]) => value.slot);
}

function isBetter(candidate: PublishedLoad, covers: boolean, current: PublishedLoad, currentCovers: boolean): boolean {
  if (covers !== currentCovers) return covers;
  const candidateStart = candidate.validFrom ?? '';
  const currentStart = current.validFrom ?? '';
  if (candidateStart !== currentStart) return candidateStart > currentStart;
  return candidate.loadId > current.loadId;
}

/** A short token naming the loads of a set of slots: it changes whenever any answer could. */
export function slotsVersion(slots: readonly Slot[]): string {
  return slots.map((slot) => `${slot.state}${slot.regime}${slot.load.loadId.toString(36)}`).join('');
}
