/**
 * A job's plan is data: the event that requests a job carries its steps, so replaying that event
 * years later gives the same plan even after the rules that build plans have changed. Nothing
 * re-derives a plan from the state.
 */

/** How a step that fails with a retryable error is run again. */
export interface RetryPolicy {
  /** Runs after the first one (0 = never retried). */
  count: number;
  /** Wait before the first retry; doubled for each later one. */
  backoffS?: number;
}

export interface PlannedStep {
  /** Unique within the plan: events name the step by it. */
  id: string;
  /** Which implementation runs it, in the host's step registry. */
  type: string;
  /** What the step needs beyond the host's state (a recipe's SQL file, a gate's question, …). */
  params: Readonly<Record<string, unknown>>;
  /** Longest one attempt may run before it is interrupted as timed out. */
  timeoutS?: number;
  retries?: RetryPolicy;
}

export interface JobPlan {
  jobId: string;
  kind: string;
  plan: readonly PlannedStep[];
}

/** A plan step whose id is its type, for hosts whose plans use each step once. */
export const planStep = (type: string, options: Partial<Omit<PlannedStep, 'type'>> = {}): PlannedStep => ({ id: type, type, params: {}, ...options });

/** Milliseconds to wait before attempt `attempt` (2, 3, …) of a step with this policy. */
export function retryDelayMs(policy: RetryPolicy | undefined, attempt: number): number {
  if (!policy?.backoffS || attempt < 2) return 0;
  return policy.backoffS * 1000 * 2 ** (attempt - 2);
}
