import type { DomainEvent } from '../eventStore/eventStore.ts';

/**
 * A pure aggregate: `decide` turns a command into events given the current state, `evolve` folds
 * one event into the state. No I/O and no clock: time and ids arrive inside the command.
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

/** A command refused by the domain: the caller shows `message` to the user. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    message: string,
    /** What kind of refusal: `conflict` maps to HTTP 409, `not_found` to 404, `invalid` to 422. */
    readonly kind: 'conflict' | 'not_found' | 'invalid' = 'conflict',
  ) {
    super(message);
  }
}

/** Folds events into state from the decider's initial state. */
export function foldEvents<State, Event extends DomainEvent>(decider: Pick<Decider<State, unknown, Event>, 'evolve' | 'initialState'>, events: Event[]): State {
  return events.reduce(decider.evolve, decider.initialState());
}
