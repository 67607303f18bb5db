/**
 * What a step returns instead of facts-or-throw: done with the facts it learnt, waiting at a gate
 * for the operator, or failed (retryable when running it again may succeed).
 */
export type StepOutcome =
  | { outcome: 'done'; facts: object; as?: 'skipped' | 'reused' }
  | { outcome: 'wait'; message: string }
  | { outcome: 'fail'; error: string; retryable: boolean; logTail?: string[] };

export const done = (facts: object = {}, as?: 'skipped' | 'reused'): StepOutcome => ({ outcome: 'done', facts, ...(as ? { as } : {}) });
export const wait = (message: string): StepOutcome => ({ outcome: 'wait', message });
export const fail = (error: string, options: { retryable: boolean; logTail?: string[] }): StepOutcome => ({ outcome: 'fail', error, ...options });
