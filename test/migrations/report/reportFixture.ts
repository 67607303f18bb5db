import { evolveMigration, initialMigrationState, type LiveMigration, type MigrationEvent, type MigrationSettings } from '#services/migrations/domain/migration.ts';
import type { RecordedMigrationEvent } from '#services/migrations/report/runHistory.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import { migrationSettings } from '#test/support/migrationSettings.ts';

export const ANA = 'user-ana-0001';
export const LUIS = 'user-luis-0002';
export const EMAILS = { [ANA]: 'ana@example.com', [LUIS]: 'luis@example.com' };
export const DUMP_SHA = 'd'.repeat(32) + 'e'.repeat(32);

export const SETTINGS: MigrationSettings = migrationSettings({ name: 'Acme Distribución S.A.', purpose: 'production', recipe: { key: 'community.16.0-17.0', sha256: 'a1b2c3d4'.repeat(8), text: 'format: 1' } });

export const PLAN: PlannedStep[] = [
  { id: 'fetch', type: 'fetch', params: { title: 'Download the database' } },
  { id: 'views', type: 'check', params: { phase: 'preflight', title: 'Custom views' } },
  { id: 'upgrade', type: 'erp', params: {} },
  { id: 'approve', type: 'gate', params: { title: 'Approve the result' } },
  { id: 'dump_result', type: 'dump', params: {} },
];

const FAILURE_LOG = Array.from({ length: 45 }, (_, index) => `2026-11-23 09:0${Math.floor(index / 10)}:00 INFO upgrade line ${index + 1}`);

let clock = Date.parse('2026-11-23T09:00:00Z');
const recorded = (type: MigrationEvent['type'], data: object, actor = 'system', stepMs = 1000): RecordedMigrationEvent & MigrationEvent => {
  clock += stepMs;
  return { type, data, metadata: { actor, at: new Date(clock).toISOString() } } as RecordedMigrationEvent & MigrationEvent;
};
const onRun = (number: number, jobId: string) => ({ slug: SETTINGS.slug, number, jobId });

/**
 * Run 1 fetches, warns about two views, fails its upgrade (with a 45-line log); run 2 resumes it,
 * is paused and resumed by Ana, and Luis approves its gate; it dumps the result and succeeds.
 */
export function story(): Array<RecordedMigrationEvent & MigrationEvent> {
  clock = Date.parse('2026-11-23T09:00:00Z');
  const r1 = onRun(1, 'job-1');
  const r2 = onRun(2, 'job-2');
  const warnings = ['check views: expected 0 row(s), found 2 row(s): sale_report_custom, x_margin_view', 'module acme_extra is not in 17.0: uninstall it or port it'];
  return [
    recorded('MigrationCreated', SETTINGS, ANA),
    recorded('MigrationRunRequested', { ...r1, kind: 'run', plan: PLAN, resumedFrom: null, reused: {}, skipped: [], skipPreflight: false }, ANA),
    recorded('MigrationStepStarted', { ...r1, step: 'fetch', attempt: 1 }),
    recorded('MigrationStepCompleted', { ...r1, step: 'fetch', durationMs: 4200, facts: { bytes: 1234, sha256: DUMP_SHA } }, 'system', 4200),
    recorded('MigrationStepStarted', { ...r1, step: 'views', attempt: 1 }),
    recorded('MigrationStepCompleted', { ...r1, step: 'views', durationMs: 300, facts: { rows: 2, warnings } }),
    recorded('MigrationStepStarted', { ...r1, step: 'upgrade', attempt: 1 }),
    recorded('MigrationStepFailed', { ...r1, step: 'upgrade', durationMs: 65_000, error: 'the ERP exited with 1: division by zero in sale', retryable: false, logTail: FAILURE_LOG }, 'system', 65_000),
    recorded('MigrationJobFailed', { ...r1, step: 'upgrade', error: 'the ERP exited with 1: division by zero in sale' }),
    recorded('MigrationRunRequested', { ...r2, kind: 'resume', plan: PLAN, resumedFrom: 1, reused: { fetch: { bytes: 1234, sha256: DUMP_SHA }, views: { rows: 2, warnings } }, skipped: [], skipPreflight: false }, ANA),
    recorded('MigrationStepStarted', { ...r2, step: 'upgrade', attempt: 1 }),
    recorded('MigrationJobPaused', { ...r2 }, ANA),
    recorded('MigrationStepInterrupted', { ...r2, step: 'upgrade', reason: 'pause', durationMs: 2000 }),
    recorded('MigrationJobResumed', { ...r2 }, ANA),
    recorded('MigrationStepStarted', { ...r2, step: 'upgrade', attempt: 2 }),
    recorded('MigrationStepCompleted', { ...r2, step: 'upgrade', durationMs: 125_000, facts: {} }, 'system', 125_000),
    recorded('MigrationStepStarted', { ...r2, step: 'approve', attempt: 1 }),
    recorded('MigrationGateReached', { ...r2, step: 'approve', message: 'Check the result' }),
    recorded('MigrationGateResolved', { ...r2, step: 'approve', decision: 'approved', by: LUIS, note: 'invoices checked with the customer' }, LUIS, 600_000),
    recorded('MigrationStepStarted', { ...r2, step: 'dump_result', attempt: 1 }),
    recorded('MigrationStepCompleted', { ...r2, step: 'dump_result', durationMs: 800, facts: { artifact: { kind: 'dump', name: 'dump_result.dump', key: 'migrations/acme-17/runs/2/dump_result.dump', bytes: 52_428_800, sha256: 'f0'.repeat(32) } } }),
    recorded('MigrationJobSucceeded', { ...r2 }),
  ];
}

export function migrationOf(events: MigrationEvent[]): LiveMigration {
  return events.reduce(evolveMigration, initialMigrationState()) as LiveMigration;
}
