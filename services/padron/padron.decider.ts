import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { evolvePadron, initialPadronState, type PadronEvent, type PadronLoadedData, type PadronState } from './padron.ts';

/** Records a finished, published import. The data is the whole load report. */
export type RecordPadronLoad = { type: 'RecordPadronLoad'; load: PadronLoadedData };
export type PadronCommand = RecordPadronLoad;

/** Thrown when the same file (same sha256) was already loaded for the jurisdiction. */
export class PadronAlreadyLoadedError extends DomainError {
  constructor(
    readonly sha256: string,
    readonly previous: { loadId: number; fileName: string; publishedAt: string },
  ) {
    super(`this file (sha256 ${sha256.slice(0, 12)}…) was already loaded as load ${previous.loadId} (${previous.fileName}, published ${previous.publishedAt}); nothing changed`, 'conflict');
  }
}

/**
 * Refuses a file that was already loaded. Cheap to ask before an import (from the stream alone),
 * and asked again when the load is recorded, so two runs racing with the same file record it once.
 */
export function assertNotLoaded(state: PadronState, sha256: string): void {
  const previous = state.loadedFiles[sha256];
  if (previous) throw new PadronAlreadyLoadedError(sha256, previous);
}

export const padronDecider: Decider<PadronState, PadronCommand, PadronEvent> = {
  initialState: initialPadronState,
  evolve: evolvePadron,
  decide(command, state) {
    switch (command.type) {
      case 'RecordPadronLoad':
        assertNotLoaded(state, command.load.sha256);
        return [{ type: 'PadronLoaded', data: command.load }];
      default: {
        const unknown: never = command.type;
        return unknown;
      }
    }
  },
};
