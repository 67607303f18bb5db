import type { PlannedStep } from '#shared/workflow/plan.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { instancePlan, instanceStream, type ActionReason, type InstanceEvent, type InstanceSettings, type JobKind, type StepFacts } from '#services/instances/domain/instance.ts';
import { event, type EventDraft } from './projectionSpec.ts';

/** A destroyed instance's job ends in `destroyed`, a stop in `stopped`…: what InstanceJobSucceeded says the instance became. */
type JobOutcome = Extract<InstanceEvent, { type: 'InstanceJobSucceeded' }>['data']['status'];

/** `legacy`: written before plans, attempt ids and `retryable` existed, as the first events were. */
interface Era {
  legacy?: boolean;
}

/**
 * Event drafts of one instance's stream for projection specs, as the decider and the executor
 * write them. Each is checked against its schema (`schemas/events/<type>.v1.json`) when built, so a
 * spec cannot feed a projection an event the platform would never record.
 */
export function instanceHistory(overrides: Partial<InstanceSettings> = {}) {
  const settings: InstanceSettings = {
    slug: 'acme-dev',
    name: 'dev',
    project: 'acme',
    stage: 'development',
    erpVersion: '17.0',
    edition: 'community',
    modules: ['sale', 'stock'],
    gitRepo: 'git@github.com:acme/erp.git',
    branch: 'main',
    source: { kind: 'empty' },
    ...overrides,
  };
  const { slug } = settings;
  const stream = instanceStream(slug);
  const draft = (domainEvent: InstanceEvent, metadata: EventDraft['metadata'] = {}): EventDraft => {
    const validate = schemaValidator(`events/${domainEvent.type}.v1.json`);
    if (!validate(domainEvent.data)) throw new Error(`${domainEvent.type} does not match its schema: ${describeErrors(validate)}`);
    return event<InstanceEvent>(domainEvent, { stream, metadata });
  };
  const attempt = (jobId: string, step: string, n: number) => ({ attemptId: `${jobId}-${step}-${n}` });

  const history = {
    slug,
    stream,
    settings,
    requested(jobId: string, { legacy, plan = instancePlan('provision', false), actor = 'user-ana' }: Era & { plan?: readonly PlannedStep[]; actor?: string } = {}) {
      return draft({ type: 'InstanceRequested', data: { ...settings, jobId, ...(legacy ? {} : { plan }) } }, { actor });
    },
    /** `provisioned` picks today's plan, as the decider does; `plan` overrides it. */
    action(
      action: Exclude<JobKind, 'provision'>,
      jobId: string,
      { legacy, reason = 'user', headCommit, provisioned = true, plan = instancePlan(action, provisioned) }: Era & { reason?: ActionReason; headCommit?: string; provisioned?: boolean; plan?: readonly PlannedStep[] } = {},
    ) {
      return draft({ type: 'InstanceActionRequested', data: { slug, action, jobId, reason, ...(headCommit ? { headCommit } : {}), ...(legacy ? {} : { plan }) } });
    },
    started(jobId: string, step: string, { legacy, attempt: n = 1 }: Era & { attempt?: number } = {}) {
      return draft({ type: 'InstanceStepStarted', data: { slug, jobId, step, attempt: n, ...(legacy ? {} : { ...attempt(jobId, step, n), executor: 'executor-1' }) } });
    },
    completed(jobId: string, step: string, { legacy, attempt: n = 1, facts = {}, durationMs = 1200, as }: Era & { attempt?: number; facts?: StepFacts; durationMs?: number; as?: 'skipped' | 'reused' } = {}) {
      return draft({ type: 'InstanceStepCompleted', data: { slug, jobId, step, ...(legacy ? {} : attempt(jobId, step, n)), durationMs, facts, ...(as ? { as } : {}) } });
    },
    /** Without `retryable` (a legacy failure), the failure ended the job. */
    failed(jobId: string, step: string, error: string, { retryable, attempt: n = 1, logTail = [`${step}: ${error}`], durationMs = 800 }: { retryable?: boolean; attempt?: number; logTail?: string[]; durationMs?: number } = {}) {
      const current = retryable === undefined ? {} : { ...attempt(jobId, step, n), retryable };
      return draft({ type: 'InstanceStepFailed', data: { slug, jobId, step, ...current, durationMs, error, logTail } });
    },
    /** A cancel or pause carries no duration (the decider records it); a timeout does (the executor reports it). */
    interrupted(jobId: string, step: string, reason: 'cancel' | 'pause' | 'timeout', { attempt: n = 1, durationMs }: { attempt?: number; durationMs?: number } = {}) {
      return draft({ type: 'InstanceStepInterrupted', data: { slug, jobId, step, ...attempt(jobId, step, n), reason, ...(durationMs === undefined ? {} : { durationMs }) } });
    },
    jobSucceeded(jobId: string, kind: JobKind, status: JobOutcome) {
      return draft({ type: 'InstanceJobSucceeded', data: { slug, jobId, kind, status } });
    },
    jobFailed(jobId: string, step: string, error: string) {
      return draft({ type: 'InstanceJobFailed', data: { slug, jobId, step, error } });
    },
    jobCancelled(jobId: string, reason = 'destroy') {
      return draft({ type: 'InstanceJobCancelled', data: { slug, jobId, reason } });
    },
    rebuildDeferred(jobId: string, headCommit?: string) {
      return draft({ type: 'InstanceRebuildDeferred', data: { slug, jobId, ...(headCommit ? { headCommit } : {}) } });
    },
    processExited(exitCode: number | null, logTail: string[] = ['Traceback (most recent call last):']) {
      return draft({ type: 'InstanceProcessExited', data: { slug, exitCode, logTail } });
    },
    purged() {
      return draft({ type: 'InstancePurged', data: { slug } });
    },
    /** Every step of `steps` started and completed (with `facts` by step), then the job's success. */
    ranJob(jobId: string, steps: readonly string[], kind: JobKind, outcome: JobOutcome, { legacy, facts = {} }: Era & { facts?: Record<string, StepFacts> } = {}): EventDraft[] {
      return [...steps.flatMap((step) => [history.started(jobId, step, { legacy }), history.completed(jobId, step, { legacy, facts: facts[step] ?? {} })]), history.jobSucceeded(jobId, kind, outcome)];
    },
  };
  return history;
}

/** What a provisioning's steps learn, as the executor reports them (services/executor/jobs/steps.ts). */
export const PROVISION_FACTS: Record<string, StepFacts> = {
  resolve_source: { branchHead: 'aaaaaaa1' },
  fetch_code: { commit: 'aaaaaaa1' },
  build: { runtime: 'process', standin: true, addonsPath: ['/srv/forja/instances/acme-dev/src', '/srv/forja/instances/acme-dev/src/addons'] },
  start: { port: 21000, url: 'http://127.0.0.1:21000' },
};
