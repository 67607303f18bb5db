import type { Decider } from '../decider/decider.ts';
import type { DomainEvent } from '../eventStore/eventStore.ts';
import type { JobState } from './jobState.ts';
import type { PlannedStep } from './plan.ts';
import type { StepOutcome } from './stepOutcome.ts';
import type { WorkflowCommand } from './workflowDecide.ts';

/** A step implementation: what the host gives it, its plan entry, and the signal that stops it (cancel, pause, timeout, shutdown). */
export type StepRun<Context> = (context: Context, step: PlannedStep, signal: AbortSignal) => Promise<StepOutcome>;

/** Steps by their plan `type`: instance steps and migration steps are two registries. */
export type StepRegistry<Context> = Readonly<Record<string, StepRun<Context>>>;

/**
 * What the runner needs to know of the stream that hosts a job: which stream and decider, how to
 * find the job in its state, how workflow commands are sent to its decider, its steps, and where
 * the job's own lines and a failure's explanation come from.
 */
export interface WorkflowHost<State, Command, Event extends DomainEvent, Context> {
  /** `control.<kind>.<id>` is where cancel and pause notices for this stream arrive. */
  kind: string;
  id: string;
  stream: string;
  decider: Decider<State, Command, Event>;
  /** The job `jobId` in this state, or null when the stream no longer runs it (superseded). */
  jobOf(state: State, jobId: string): JobState | null;
  /** A workflow command as the host's decider takes it. */
  command(command: WorkflowCommand): Command;
  steps: StepRegistry<Context>;
  /** What a step gets, built from the state as it is when the step starts (earlier steps' facts included). */
  context(state: State, job: JobState): Context;
  /** The job's own progress lines (started, completed, failed), for the log an operator follows. */
  log(line: string): Promise<void>;
  /** The last log lines that explain why `step` failed. */
  failureTail(step: PlannedStep, error: unknown): string[];
  /**
   * After a step was stopped by a pause or cancel (its tools are killed by then): ends what may
   * still run outside them, such as server-side work of a killed client (a migration ends every
   * connection to its working database).
   */
  afterStop?(state: State): Promise<void>;
}
