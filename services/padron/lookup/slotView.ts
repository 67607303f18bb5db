import { REGIME_NAMES, STATE_NAMES } from '../parse/padronRecord.ts';
import { argentineDateTime } from '../time.ts';
import type { Slot } from './catalog.ts';
import { findFirst, type LoadIndex } from './compactIndex.ts';

/**
 * A slot ready to answer: its load's index when it is in memory, and the constant parts of its
 * results as JSON text, so a result costs one concatenation:
 * `head + cuit + middle + aliquot + "," + period + tail`.
 */
export interface SlotView extends Slot {
  index: LoadIndex | undefined;
  /** The spec's `last_update`: when the jurisdiction's newest answering load was published, Argentine time. */
  lastUpdate: string;
  regimeBit: number;
  head: string;
  middle: string;
  tail: string;
}

export function slotView(slot: Slot, index: LoadIndex | undefined, statePublishedAt: Date): SlotView {
  const lastUpdate = argentineDateTime(statePublishedAt);
  return {
    ...slot,
    index,
    lastUpdate,
    regimeBit: slot.regime === 'P' ? 0 : 1,
    head: `{"state":"${slot.state}","state_name":${JSON.stringify(STATE_NAMES[slot.state])},"cuit":"`,
    middle: `","regime":"${slot.regime}","regime_name":${JSON.stringify(REGIME_NAMES[slot.regime])},"aliquot":`,
    tail: `,"last_update":"${lastUpdate}"}`,
  };
}

/**
 * The result of `cuit` in an in-memory slot as JSON text, or '' when it has none. `at` is the
 * CUIT's first position in the index when the caller already found it (P and R slots of one load
 * are neighbours), else `findFirst` finds it.
 */
export function resultFromIndex(slot: SlotView, index: LoadIndex, cuit: number, cuitText: string, at = findFirst(index, cuit)): string {
  if (at < 0) return '';
  for (; at < index.size && index.cuits[at] === cuit; at++) {
    if (index.regimes[at] !== slot.regimeBit) continue;
    return `${slot.head}${cuitText}${slot.middle}${index.aliquotJson[index.aliquots[at] ?? 0]},${index.periodJson[index.periods[at] ?? 0]}${slot.tail}`;
  }
  return '';
}

/** The same from a row read from the database. */
export function resultFromRow(slot: SlotView, cuitText: string, aliquotJson: string, periodJson: string): string {
  return `${slot.head}${cuitText}${slot.middle}${aliquotJson},${periodJson}${slot.tail}`;
}
