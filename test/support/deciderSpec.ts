import { expect } from 'chai';
import type { Decider } from '#shared/decider/decider.ts';
import type { DomainEvent } from '#shared/eventStore/eventStore.ts';

/**
 * Given/when/then for deciders, after Oskar Dudycz's decider specification:
 * `spec.given([events]).when(command).then([events])` or `.thenThrows(ErrorClass, /message/)`.
 */
export function deciderSpec<State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>) {
  return {
    given(history: Event[]) {
      return {
        when(command: Command) {
          const run = () => decider.decide(command, history.reduce(decider.evolve, decider.initialState()));
          return {
            then(expected: Event[]): void {
              expect(run()).to.deep.equal(expected);
            },
            thenNothingHappens(): void {
              expect(run()).to.deep.equal([]);
            },
            thenThrows(errorType: new (...args: never[]) => Error, message?: RegExp): void {
              expect(run).to.throw(errorType, message);
            },
          };
        },
      };
    },
  };
}
