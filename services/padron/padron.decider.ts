import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { evolvePadron, initialPadronState, type PadronEvent, type PadronLoadedData, type PadronState } from './padron.ts';

/** Records a finished, published import. The data is the whole load report. */
export type RecordPadronLoad = { type: 'RecordPadronLoad'; load: PadronLoadedData };
export type PadronCommand = RecordPadronLoad;

/** Thrown when the load was already recorded: two runs finishing the same publish record it once. */
export class PadronLoadAlreadyRecordedError extends DomainError {
  constructor(
    readonly loadId: number,
    readonly previous: { fileName: string; publishedAt: string },
  ) {
    super(`load ${loadId} (${previous.fileName}, published ${previous.publishedAt}) is already recorded; nothing changed`, 'conflict');
  }
}

/** True when the jurisdiction's stream already holds the load's PadronLoaded. */
export function isRecorded(state: PadronState, loadId: number): boolean {
  return state.recordedLoads[loadId] !== undefined;
}

export const padronDecider: Decider<PadronState, PadronCommand, PadronEvent> = {
  initialState: initialPadronState,
  evolve: evolvePadron,
  decide(command, state) {
    switch (command.type) {
      case 'RecordPadronLoad': {
        const previous = state.recordedLoads[command.load.loadId];
        if (previous) throw new PadronLoadAlreadyRecordedError(command.load.loadId, previous);
        return [{ type: 'PadronLoaded', data: command.load }];
      }
      default: {
        const unknown: never = command.type;
        return unknown;
      }
    }
  },
};
