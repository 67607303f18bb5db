/** Forja's view of a request on the upgrade platform, whatever the platform calls its states. */
export type UpgradeState = 'pending' | 'progress' | 'done' | 'failed' | 'cancelled';

/** What a run does next for a request the platform reports in a given state (on resume, too). */
export type UpgradePhase = 'upload' | 'process' | 'poll' | 'download' | 'failed' | 'cancelled';

interface KnownState {
  state: UpgradeState;
  phase: UpgradePhase;
}

/**
 * The platform's states, as the vendor's script's state machine names them (upgradeClient.ts):
 * `new` waits for the dump, `pending` for the order to process, `progress` is processing, `done`
 * has the result, `failed` and `cancelled` end it.
 */
const knownStates: Record<string, KnownState> = {
  new: { state: 'pending', phase: 'upload' },
  pending: { state: 'pending', phase: 'process' },
  progress: { state: 'progress', phase: 'poll' },
  done: { state: 'done', phase: 'download' },
  failed: { state: 'failed', phase: 'failed' },
  cancelled: { state: 'cancelled', phase: 'cancelled' },
};

/** The platform's state mapped; one Forja does not know counts as still in progress (the run's timeout bounds it). */
export function upgradeStateOf(platformState: string): KnownState & { known: boolean } {
  const known = Object.hasOwn(knownStates, platformState) ? knownStates[platformState] : undefined;
  return known ? { ...known, known: true } : { state: 'progress', phase: 'poll', known: false };
}
