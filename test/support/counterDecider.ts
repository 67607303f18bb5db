import { DomainError, type Decider } from '#shared/decider/decider.ts';

/** A small decider for testing the machinery around deciders: a counter that may not pass 10. */
export type CounterEvent = { type: 'CounterIncremented'; data: { by: number } } | { type: 'CounterReset'; data: Record<string, never> };
export type CounterCommand = { type: 'Increment'; by: number } | { type: 'Reset' };

export const counterDecider: Decider<{ value: number }, CounterCommand, CounterEvent> = {
  initialState: () => ({ value: 0 }),
  evolve(state, event) {
    switch (event.type) {
      case 'CounterIncremented':
        return { value: state.value + event.data.by };
      case 'CounterReset':
        return { value: 0 };
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'Increment':
        if (state.value + command.by > 10) throw new DomainError(`the counter may not pass 10 (it is at ${state.value})`);
        return [{ type: 'CounterIncremented', data: { by: command.by } }];
      case 'Reset':
        return state.value === 0 ? [] : [{ type: 'CounterReset', data: {} }];
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};
