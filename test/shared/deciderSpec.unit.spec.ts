import { expect } from 'chai';
import { DomainError } from '#shared/decider/decider.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';
import { counterDecider } from '#test/support/counterDecider.ts';

describe('decider spec helper', () => {
  const spec = deciderSpec(counterDecider);

  it('checks the events a command decides on the given history', () => {
    spec.given([{ type: 'CounterIncremented', data: { by: 4 } }]).when({ type: 'Increment', by: 6 }).then([{ type: 'CounterIncremented', data: { by: 6 } }]);
  });

  it('checks a refusal', () => {
    spec.given([{ type: 'CounterIncremented', data: { by: 9 } }]).when({ type: 'Increment', by: 2 }).thenThrows(DomainError, /may not pass 10/);
  });

  it('checks that nothing happens', () => {
    spec.given([]).when({ type: 'Reset' }).thenNothingHappens();
  });

  it('fails when the decided events differ', () => {
    expect(() => spec.given([]).when({ type: 'Increment', by: 1 }).then([])).to.throw();
  });
});
