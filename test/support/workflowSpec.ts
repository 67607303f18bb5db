import { expect } from 'chai';
import { decideNext, type NextMove } from '#shared/workflow/decideNext.ts';
import { evolveJob, newJob, type JobState } from '#shared/workflow/jobState.ts';
import type { JobPlan } from '#shared/workflow/plan.ts';
import { decideWorkflow, type WorkflowCommand } from '#shared/workflow/workflowDecide.ts';
import type { WorkflowEvent } from '#shared/workflow/workflowEvents.ts';

/**
 * Given/when/then for the workflow kernel, like `deciderSpec`:
 * `workflowSpec(plan).given([events]).thenNext(move)`, `.when(command).then([events])` or
 * `.thenThrows(ErrorClass, /message/)`, and `.thenJob(job => …)` to look at the fold.
 */
export function workflowSpec(plan: JobPlan) {
  return {
    given(history: WorkflowEvent[]) {
      const job = (): JobState => history.reduce(evolveJob, newJob(plan));
      return {
        thenNext(expected: NextMove): void {
          expect(decideNext(job())).to.deep.equal(expected);
        },
        thenJob(check: (job: JobState) => void): void {
          check(job());
        },
        when(command: WorkflowCommand) {
          const run = () => decideWorkflow(job(), command);
          return {
            then(expected: WorkflowEvent[]): void {
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
