import type { AuditEvent } from '#services/migrations/audit/auditChain.ts';
import type { MigrationEvent, MigrationSettings } from '#services/migrations/domain/migration.ts';
import { planStep } from '#shared/workflow/plan.ts';
import { migrationSettings } from '#test/support/migrationSettings.ts';

/** A migration's history as events of its stream: created, a run that fails its pre-flight, run-anyway, a gate approved, success. */
export const SLUG = 'audit-acme';

const settings: MigrationSettings = migrationSettings({ slug: SLUG, name: 'Audit Acme', notifyTo: ['ana@example.com'], workingDatabase: 'forja_mig_audit_acme' });

const PLAN = [planStep('space', { params: { phase: 'preflight' } }), planStep('fetch'), planStep('approve', { params: { message: 'Looks right?' } }), planStep('upgrade')];
const run = (number: number, jobId: string) => ({ slug: SLUG, number, jobId });

export const HISTORY: MigrationEvent[] = [
  { type: 'MigrationCreated', data: settings },
  { type: 'MigrationRunRequested', data: { ...run(1, 'r1'), kind: 'run', plan: PLAN, resumedFrom: null, reused: {}, skipped: [], skipPreflight: false } },
  { type: 'MigrationStepStarted', data: { ...run(1, 'r1'), step: 'space', attempt: 1, attemptId: 'a1', executor: 'exec-host:41' } },
  { type: 'MigrationStepFailed', data: { ...run(1, 'r1'), step: 'space', attemptId: 'a1', durationMs: 40, error: 'not enough disk', retryable: false, logTail: [] } },
  { type: 'MigrationJobFailed', data: { ...run(1, 'r1'), step: 'space', error: 'not enough disk' } },
  {
    type: 'MigrationRunRequested',
    data: { ...run(2, 'r2'), kind: 'run-anyway', plan: PLAN, resumedFrom: 1, reused: {}, skipped: ['space'], skipPreflight: true, reason: 'disk is added tonight' },
  },
  { type: 'MigrationStepStarted', data: { ...run(2, 'r2'), step: 'fetch', attempt: 1, attemptId: 'a2', executor: 'exec-host:41' } },
  { type: 'MigrationStepCompleted', data: { ...run(2, 'r2'), step: 'fetch', attemptId: 'a2', durationMs: 1200, facts: { bytes: 10 } } },
  { type: 'MigrationStepStarted', data: { ...run(2, 'r2'), step: 'approve', attempt: 1, attemptId: 'a3', executor: 'exec-host:41' } },
  { type: 'MigrationGateReached', data: { ...run(2, 'r2'), step: 'approve', attemptId: 'a3', message: 'Looks right?' } },
  { type: 'MigrationGateResolved', data: { ...run(2, 'r2'), step: 'approve', decision: 'approved', by: 'user-dev', note: 'checked the totals' } },
  { type: 'MigrationStepStarted', data: { ...run(2, 'r2'), step: 'upgrade', attempt: 1, attemptId: 'a4', executor: 'exec-host:41' } },
  { type: 'MigrationStepCompleted', data: { ...run(2, 'r2'), step: 'upgrade', attemptId: 'a4', durationMs: 5000, facts: {} } },
  { type: 'MigrationJobSucceeded', data: run(2, 'r2') },
];

/** The history as stored: versions from 1, global positions with gaps (other streams in between). */
export function auditEvents(events: readonly MigrationEvent[] = HISTORY): AuditEvent[] {
  return events.map((event, index) => ({
    stream: `migration-${SLUG}`,
    version: index + 1,
    global_position: 100 + index * 3,
    id: `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`,
    type: event.type,
    data: event.data,
    metadata: { correlationId: 'req-1', causationId: 'req-1', actor: index % 2 ? 'system' : 'user-dev', at: `2026-11-20T10:00:${String(index).padStart(2, '0')}.000Z` },
    recorded_at: `2026-11-20T10:00:${String(index).padStart(2, '0')}.005Z`,
  }));
}
