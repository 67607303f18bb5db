import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Bus } from '#shared/bus/bus.ts';
import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { DomainEvent, EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { silentLogger } from '#shared/log.ts';
import { evolveJob, isJobEnded, newJob, type JobState } from '#shared/workflow/jobState.ts';
import type { JobPlan, PlannedStep, RetryPolicy } from '#shared/workflow/plan.ts';
import { done, fail, wait, type StepOutcome } from '#shared/workflow/stepOutcome.ts';
import { decideWorkflow, JobSupersededError, type WorkflowCommand } from '#shared/workflow/workflowDecide.ts';
import { asWorkflowEvent, prefixed, type WorkflowEvent, type WorkflowEventType } from '#shared/workflow/workflowEvents.ts';
import type { WorkflowHost } from '#shared/workflow/workflowHost.ts';
import { runWorkflowJob, type RunResult, type WorkflowRunOptions } from '#shared/workflow/workflowRunner.ts';

/**
 * A tiny host for testing the workflow runner: a `job-<id>` stream that holds one job, its
 * workflow events under the `Test` prefix, and `script` steps whose params say what they do.
 */
export const TEST_PREFIX = 'Test';
export const TEST_KIND = 'test';

export type TestEvent = DomainEvent<'JobRequested', JobPlan> | DomainEvent<`${typeof TEST_PREFIX}${WorkflowEventType}`, WorkflowEvent['data']>;
export type TestCommand = { type: 'RequestJob'; jobId: string; kind: string; plan: readonly PlannedStep[] } | WorkflowCommand;
export interface TestJobState {
  job: JobState | null;
}

export const testJobStream = (id: string): string => `job-${id}`;

export const testJobDecider: Decider<TestJobState, TestCommand, TestEvent> = {
  initialState: () => ({ job: null }),
  evolve(state, event) {
    if (event.type === 'JobRequested') return { job: newJob(event.data as JobPlan) };
    const workflow = asWorkflowEvent(TEST_PREFIX, event);
    return workflow && state.job ? { job: evolveJob(state.job, workflow) } : state;
  },
  decide(command, state) {
    if (command.type === 'RequestJob') {
      if (state.job && !isJobEnded(state.job)) throw new DomainError(`job ${state.job.jobId} is still ${state.job.status}`);
      return [{ type: 'JobRequested', data: { jobId: command.jobId, kind: command.kind, plan: command.plan } }];
    }
    if (!state.job || state.job.jobId !== command.jobId) throw new JobSupersededError(command.jobId);
    return decideWorkflow(state.job, command).map((event) => ({ type: prefixed(TEST_PREFIX, event.type), data: event.data }) as TestEvent);
  },
};

/** What a `script` step does, in the order checked; with none of these it completes with `facts`. */
export interface Script {
  /** Sleeps this long first (its signal cuts the sleep short). */
  sleepMs?: number;
  /** Hangs until its signal fires, on attempts up to this one (true: every attempt). */
  hang?: number | true;
  /** Holds until the test releases it, deaf to its signal (a step whose result arrives late), on attempts up to this one. */
  hold?: number | true;
  /** Fails, retryable, on attempts up to this one. */
  failRetryable?: number;
  /** Throws an error that is not retryable. */
  throws?: string;
  /** Waits at a gate with this question. */
  gate?: string;
  facts?: object;
}

export const scriptStep = (id: string, script: Script = {}, options: { timeoutS?: number; retries?: RetryPolicy } = {}): PlannedStep => ({
  id,
  type: 'script',
  params: { ...script },
  ...options,
});

/** One run of a step, as the step saw it. */
export interface StepCall {
  step: string;
  attempt: number;
  attemptId: string | undefined;
  startedAt: number;
  /** When its signal fired (performance.now()), and why. */
  abortedAt?: number;
  abortReason?: unknown;
  /** Lets a held step finish. */
  release(): void;
  outcome?: StepOutcome['outcome'] | 'threw';
}

interface TestContext {
  job: JobState;
  calls: StepCall[];
}

const upTo = (limit: number | true | undefined, attempt: number) => limit === true || (limit !== undefined && attempt <= limit);

async function runScript({ job, calls }: TestContext, step: PlannedStep, signal: AbortSignal): Promise<StepOutcome> {
  const script = step.params as Script;
  const state = job.steps[step.id];
  const attempt = state?.attempts ?? 0;
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const call: StepCall = { step: step.id, attempt, attemptId: state?.status === 'running' ? state.attemptId : undefined, startedAt: performance.now(), release };
  calls.push(call);
  signal.addEventListener('abort', () => Object.assign(call, { abortedAt: performance.now(), abortReason: signal.reason }), { once: true });
  const outcome = await (async (): Promise<StepOutcome> => {
    if (script.sleepMs) await sleep(script.sleepMs, undefined, { signal });
    if (upTo(script.hang, attempt)) await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    if (upTo(script.hold, attempt)) await released;
    if (upTo(script.failRetryable, attempt)) return fail(`attempt ${attempt} failed`, { retryable: true });
    if (script.throws) throw new Error(script.throws);
    if (script.gate) return wait(script.gate);
    return done(script.facts ?? {});
  })().catch((error: unknown) => {
    call.outcome = 'threw';
    throw error;
  });
  call.outcome = outcome.outcome;
  return outcome;
}

type WithoutJobId<C> = C extends unknown ? Omit<C, 'jobId'> : never;

/** A job on its own stream, the runner's host for it, and what its steps and decider saw. */
export interface TestJob {
  jobId: string;
  stream: string;
  host: WorkflowHost<TestJobState, TestCommand, TestEvent, TestContext>;
  calls: StepCall[];
  /** Commands the decider refused, with why. */
  refusals: Error[];
  logLines: string[];
  /** Decides a command on the stream, as the control-plane would. */
  send(command: WithoutJobId<TestCommand>): Promise<void>;
  /** `control.test.<id>`: what the relay publishes after a pause or a cancel. */
  notify(): void;
  run(options?: Partial<WorkflowRunOptions>): Promise<RunResult>;
  /** The stream's workflow events without their prefix. */
  events(): Promise<WorkflowEvent[]>;
}

export const testMetadata = (jobId: string): EventMetadata => ({ correlationId: jobId, causationId: jobId, actor: 'system', at: new Date().toISOString() });

/** Requests a job with `plan` on a fresh stream (`job-<jobId>`). */
export async function requestTestJob(store: EventStore, bus: Bus, plan: readonly PlannedStep[]): Promise<TestJob> {
  const jobId = randomUUID();
  const stream = testJobStream(jobId);
  const calls: StepCall[] = [];
  const refusals: Error[] = [];
  const logLines: string[] = [];
  const decider: typeof testJobDecider = {
    ...testJobDecider,
    decide(command, state) {
      try {
        return testJobDecider.decide(command, state);
      } catch (error) {
        refusals.push(error as Error);
        throw error;
      }
    },
  };
  const host: TestJob['host'] = {
    kind: TEST_KIND,
    id: jobId,
    stream,
    decider,
    jobOf: (state, id) => (state.job?.jobId === id ? state.job : null),
    command: (command) => command,
    steps: { script: runScript },
    context: (_state, job) => ({ job, calls }),
    log: async (line) => void logLines.push(line),
    failureTail: (_step, error) => [`tail of ${(error as Error).message}`],
  };
  const send: TestJob['send'] = async (command) => {
    await handleCommand(store, testJobDecider, stream, { jobId, ...command } as TestCommand, { metadata: testMetadata(jobId) });
  };
  await send({ type: 'RequestJob', kind: TEST_KIND, plan });
  return {
    jobId,
    stream,
    host,
    calls,
    refusals,
    logLines,
    send,
    notify: () => bus.publish(`control.${TEST_KIND}.${jobId}`, new Uint8Array()),
    run: (options = {}) =>
      runWorkflowJob(host, {
        store,
        bus,
        jobId,
        executor: 'test:1',
        metadata: () => testMetadata(jobId),
        signal: new AbortController().signal,
        working: () => {},
        checkMs: 60_000,
        logger: silentLogger,
        ...options,
      }),
    async events() {
      const { events } = await store.readStream(stream);
      return events.flatMap((event) => asWorkflowEvent(TEST_PREFIX, event) ?? []);
    },
  };
}
