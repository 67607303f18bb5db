import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Bus } from '../bus/bus.ts';
import { aggregateStream, type Aggregate } from '../decider/aggregateStream.ts';
import { handleCommand } from '../decider/handleCommand.ts';
import type { DomainEvent, EventMetadata, EventStore } from '../eventStore/eventStore.ts';
import type { Logger } from '../log.ts';
import { decideNext } from './decideNext.ts';
import { isJobEnded, type JobState } from './jobState.ts';
import type { PlannedStep } from './plan.ts';
import { fail, type StepOutcome } from './stepOutcome.ts';
import { JobSupersededError, StaleAttemptError, type WorkflowCommand } from './workflowDecide.ts';
import type { WorkflowHost } from './workflowHost.ts';

export interface WorkflowRunOptions {
  store: EventStore;
  bus: Bus;
  jobId: string;
  /** Names this executor in each start (`host:pid`). */
  executor: string;
  /** The metadata of the events the runner appends (caused by the request it runs). */
  metadata: () => EventMetadata;
  /** The executor is shutting down: the step is stopped and the job left for redelivery. */
  signal: AbortSignal;
  /** Tells the queue the job is alive (restarts its ack wait). */
  working(): void;
  /** How often the job tells the queue it is alive and re-reads its stream (the fallback for a lost control notice). */
  checkMs: number;
  logger: Logger;
}

/** How a run ended: the job ended, waits at a gate, is paused, or the stream no longer runs it. */
export type RunResult = 'ended' | 'waiting' | 'paused' | 'superseded';

/** The job was cancelled or paused while a step ran: its interruption is already recorded. */
class JobStopped extends Error {
  override readonly name = 'JobStopped';
}

class StepTimedOut extends Error {
  override readonly name = 'StepTimedOut';
}

const refusedAsStale = (error: unknown) => error instanceof JobSupersededError || error instanceof StaleAttemptError;

/**
 * Runs one job from its first incomplete step, on any stream that hosts jobs. The runner keeps
 * the folded stream between steps and reads only what was appended since; a step's completion and
 * the next step's start are one append. A cancel or pause (a `control.<kind>.<id>` notice,
 * or the periodic re-read if the notice is lost) aborts the running step's signal; so do the
 * step's timeout and the executor's shutdown. A result that arrives for an attempt no longer
 * current is refused by the decider and dropped here.
 */
export async function runWorkflowJob<State, Command, Event extends DomainEvent, Context>(
  host: WorkflowHost<State, Command, Event, Context>,
  options: WorkflowRunOptions,
): Promise<RunResult> {
  const { store, jobId } = options;
  let aggregate: Aggregate<State> = await aggregateStream(store, host.decider, host.stream);
  const stopped = new AbortController();
  const keep = (next: Aggregate<State>) => {
    if (next.version > aggregate.version) aggregate = next;
  };
  const job = (): JobState | null => host.jobOf(aggregate.state, jobId);

  let refreshing: Promise<void> | undefined;
  /** Re-reads what was appended since; a job that ended or paused meanwhile stops its step. */
  const refresh = () =>
    (refreshing ??= aggregateStream(store, host.decider, host.stream, aggregate)
      .then((next) => {
        keep(next);
        const current = job();
        if (!current || isJobEnded(current) || current.status === 'paused') stopped.abort(new JobStopped(`job ${jobId} is ${current?.status ?? 'superseded'}`));
      })
      .catch((error: unknown) => options.logger.warn({ err: error, jobId }, 'cannot re-read the job stream'))
      .finally(() => (refreshing = undefined)));
  const subscription = options.bus.subscribe(`control.${host.kind}.${host.id}`, () => void refresh());
  const check = setInterval(() => {
    options.working();
    void refresh();
  }, options.checkMs);
  const shutdown = () => stopped.abort(options.signal.reason);
  options.signal.addEventListener('abort', shutdown, { once: true });
  if (options.signal.aborted) shutdown();

  const send = async (command: WorkflowCommand): Promise<boolean> => {
    try {
      const result = await handleCommand(store, host.decider, host.stream, host.command(command), { metadata: options.metadata(), known: aggregate });
      keep(result.aggregate);
      return true;
    } catch (error) {
      if (refusedAsStale(error)) return false;
      throw error;
    }
  };

  /** The attempt the last completion already started (same append), so the loop does not start it again. */
  let startedWithCompletion: string | undefined;
  try {
    for (;;) {
      if (options.signal.aborted) throw options.signal.reason;
      const current = job();
      if (!current) return 'superseded';
      const next = decideNext(current);
      switch (next.type) {
        case 'ended':
          return 'ended';
        case 'paused':
          return 'paused';
        case 'wait':
          return 'waiting';
        case 'complete':
        case 'fail':
          if (!(await send({ type: 'FinishJob', jobId }))) return 'superseded';
          continue;
        case 'run':
          break;
        default: {
          const unknown: never = next;
          return unknown;
        }
      }
      if (next.delayMs > 0) {
        await host.log(`${current.kind}: ${next.step.id} runs again in ${Math.round(next.delayMs / 1000)} s (attempt ${next.attempt})`);
        await sleep(next.delayMs, undefined, { signal: stopped.signal }).catch(() => undefined);
        if (stopped.signal.aborted) {
          if (options.signal.aborted) throw options.signal.reason;
          continue; // cancelled or paused while waiting: the state says which
        }
      }
      const already = current.steps[next.step.id];
      const startedAlready = already?.status === 'running' && already.attemptId !== undefined && already.attemptId === startedWithCompletion;
      const attemptId = startedAlready ? startedWithCompletion! : randomUUID();
      startedWithCompletion = undefined;
      if (!startedAlready && !(await send({ type: 'StartStep', jobId, step: next.step.id, attemptId, executor: options.executor }))) return 'superseded';
      options.working();
      // The step sees the job as its start left it (running, this attempt counted), not as it was before.
      const outcome = await runAttempt(host, aggregate.state, job() ?? current, next.step, stopped.signal);
      const { step } = next;
      if (outcome.type === 'stopped') {
        if (options.signal.aborted) throw options.signal.reason;
        await host.afterStop?.(aggregate.state);
        // `current` is the job before the step started (never paused): the state read since says why it stopped.
        await host.log(`${current.kind}: ${step.id} stopped (${job()?.status === 'paused' ? 'paused' : 'the job was cancelled'})`);
        continue; // the state says why: cancelled, paused or superseded
      }
      const base = { jobId, step: step.id, attemptId, durationMs: outcome.durationMs };
      let recorded: boolean;
      if (outcome.type === 'timeout') {
        await host.log(`${current.kind}: ${step.id} timed out after ${step.timeoutS} s`);
        recorded = await send({ ...base, type: 'InterruptStep', reason: 'timeout' });
      } else if (outcome.result.outcome === 'done') {
        // The next step (if the job goes straight on) starts in the same append, and the log line is
        // written meanwhile: a step costs one append.
        const nextAttempt = { attemptId: randomUUID(), executor: options.executor };
        [recorded] = await Promise.all([
          send({ ...base, type: 'CompleteStep', facts: outcome.result.facts, ...(outcome.result.as ? { as: outcome.result.as } : {}), next: nextAttempt }),
          host.log(`${current.kind}: ${step.id} completed in ${outcome.durationMs} ms`),
        ]);
        startedWithCompletion = nextAttempt.attemptId;
      } else if (outcome.result.outcome === 'wait') {
        await host.log(`${current.kind}: ${step.id} waits: ${outcome.result.message}`);
        recorded = await send({ type: 'ReachGate', jobId, step: step.id, attemptId, message: outcome.result.message });
      } else {
        const { error, retryable, logTail } = outcome.result;
        await host.log(`${step.id} failed: ${error}`);
        recorded = await send({ ...base, type: 'FailStep', error, retryable, logTail: logTail ?? [] });
      }
      if (!recorded) return 'superseded';
    }
  } finally {
    clearInterval(check);
    subscription.unsubscribe();
    options.signal.removeEventListener('abort', shutdown);
  }
}

type AttemptOutcome = { type: 'finished'; result: StepOutcome; durationMs: number } | { type: 'timeout'; durationMs: number } | { type: 'stopped' };

/** Runs one attempt of a step with its own signal: the job's stop, or its timeout. A thrown error is a failure (retryable when the error says so). */
async function runAttempt<State, Command, Event extends DomainEvent, Context>(
  host: WorkflowHost<State, Command, Event, Context>,
  state: State,
  job: JobState,
  step: PlannedStep,
  stopped: AbortSignal,
): Promise<AttemptOutcome> {
  const run = host.steps[step.type];
  const attempt = new AbortController();
  const stop = () => attempt.abort(stopped.reason);
  stopped.addEventListener('abort', stop, { once: true });
  const timer = step.timeoutS ? setTimeout(() => attempt.abort(new StepTimedOut(`timed out after ${step.timeoutS} s`)), step.timeoutS * 1000) : undefined;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  await host.log(`${job.kind}: ${step.id} started`);
  try {
    if (!run) return { type: 'finished', result: fail(`no implementation for step type ${step.type}`, { retryable: false }), durationMs: 0 };
    const result = await run(host.context(state, job), step, attempt.signal).catch((error: unknown): StepOutcome => {
      if (attempt.signal.aborted) return fail('aborted', { retryable: true });
      const retryable = (error as { retryable?: unknown }).retryable === true;
      return fail((error as Error).message, { retryable, logTail: host.failureTail(step, error) });
    });
    if (attempt.signal.aborted) return attempt.signal.reason instanceof StepTimedOut ? { type: 'timeout', durationMs: elapsed() } : { type: 'stopped' };
    return { type: 'finished', result, durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
    stopped.removeEventListener('abort', stop);
  }
}
