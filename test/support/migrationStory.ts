import { randomBytes } from 'node:crypto';
import { migrationDecider, type MigrationCommand } from '#services/migrations/domain/migration.decider.ts';
import { evolveMigration, initialMigrationState, migrationStream, type MigrationSettings, type MigrationState } from '#services/migrations/domain/migration.ts';
import type { AppendResult, EventStore } from '#shared/eventStore/eventStore.ts';
import { planStep } from '#shared/workflow/plan.ts';

/** A gate, then an upgrade: enough for a run to wait, fail and succeed. */
export const GATED_PLAN = [{ id: 'approve', type: 'gate', params: { title: 'Approve the upgrade' } }, planStep('upgrade')];

/**
 * One migration written to a real event store the way the control-plane and the executor write it:
 * each command decided by the real decider on the stream's state, its events appended.
 */
export function migrationStory(store: EventStore, overrides: Partial<MigrationSettings> = {}) {
  const slug = overrides.slug ?? `notice-${randomBytes(4).toString('hex')}`;
  const settings: MigrationSettings = {
    slug,
    name: `Upgrade ${slug}`,
    origin: '16.0',
    destination: '17.0',
    flavor: 'community',
    engine: 'openupgrade',
    purpose: 'production',
    contract: null,
    notifyTo: ['ops@example.com', 'ana@example.com'],
    input: { mode: 'pull', pullUrl: 'https://files.example.com/acme.dump' },
    recipe: { key: 'community.16.0-17.0', sha256: 'a'.repeat(64), text: 'format: 1' },
    workingDatabase: `mig_${slug.replace(/-/g, '_')}`,
    ...overrides,
  };
  let state: MigrationState = initialMigrationState();
  let version = 0;
  const attemptOf = (step: string) => {
    const current = state.status === 'none' ? undefined : state.runs.at(-1)?.job.steps[step];
    return current && 'attemptId' in current ? current.attemptId : undefined;
  };
  const story = {
    slug,
    settings,
    /** Decides and appends each command in turn; the last append's result. */
    async tell(...commands: MigrationCommand[]): Promise<AppendResult> {
      let result: AppendResult | undefined;
      for (const command of commands) {
        const told = 'step' in command && command.type !== 'StartStep' && !('attemptId' in command) ? { ...command, attemptId: attemptOf(command.step) } : command;
        const events = migrationDecider.decide(told as MigrationCommand, state);
        if (events.length === 0) continue;
        const metadata = { correlationId: `c-${slug}`, causationId: `c-${slug}`, actor: 'system', at: new Date().toISOString() };
        result = await store.appendToStream(migrationStream(slug), events.map((event) => ({ ...event, metadata })), { expectedVersion: version });
        version = result.nextVersion;
        state = events.reduce(evolveMigration, state);
      }
      if (!result) throw new Error('no command decided any event');
      return result;
    },
    create: (): MigrationCommand => ({ type: 'CreateMigration', settings }),
    run: (jobId: string): MigrationCommand => ({ type: 'RequestRun', jobId, plan: GATED_PLAN }),
    start: (jobId: string, step: string, attempt = 1): MigrationCommand => ({ type: 'StartStep', jobId, step, attemptId: `${jobId}-${step}-${attempt}`, executor: 'executor-1' }),
    gate: (jobId: string, step: string, message: string) => ({ type: 'ReachGate', jobId, step, message }) as MigrationCommand,
    approve: (number: number): MigrationCommand => ({ type: 'ResolveRunGate', number, decision: 'approved', by: 'ana@example.com' }),
    complete: (jobId: string, step: string) => ({ type: 'CompleteStep', jobId, step, durationMs: 10, facts: {} }) as MigrationCommand,
    fail: (jobId: string, step: string, error: string) => ({ type: 'FailStep', jobId, step, durationMs: 10, error, retryable: false, logTail: ['starting', error] }) as MigrationCommand,
    /** Run `number` (job `jobId`) waits at the gate: the gate notice. */
    async toGate(jobId: string) {
      return story.tell(story.run(jobId), story.start(jobId, 'approve'), story.gate(jobId, 'approve', 'Check the origin backup, then approve'));
    },
  };
  return story;
}
