import { failedInPreflight, type LiveMigration, type MigrationChanges } from './migration.ts';

/**
 * Which actions a migration accepts, and why not otherwise: the one home of these rules. The
 * decider refuses with the reason (409), the web offers exactly the allowed ones, the API documents them.
 */
export const MIGRATION_ACTIONS = ['run', 'run-anyway', 'pause', 'resume', 'stop', 'delete'] as const;
export type MigrationAction = (typeof MIGRATION_ACTIONS)[number];

/** Why `action` is refused for this migration, or null when it is allowed. */
export function refuseMigrationAction(action: MigrationAction, migration: LiveMigration): string | null {
  const { slug, status } = migration;
  const last = migration.runs.at(-1);
  switch (action) {
    case 'run':
      if (migration.input.mode === 'none') return `${slug} has no input yet: upload its dump first`;
      if (status === 'queued' || status === 'running' || status === 'waiting') return `${slug} is ${status}; pause or stop its run first`;
      if (status === 'paused') return `${slug} is paused; resume it (or stop it to start over)`;
      return null;
    case 'run-anyway':
      if (!last || !failedInPreflight(last)) return `run-anyway only overrides a run that failed in pre-flight; ${slug} is ${status}`;
      return null;
    case 'pause':
      return status === 'queued' || status === 'running' || status === 'waiting' ? null : `cannot pause ${slug} while it is ${status}`;
    case 'resume':
      return status === 'paused' ? null : `cannot resume ${slug} while it is ${status}; only a paused run resumes`;
    case 'stop':
      return status === 'draft' ? `${slug} is a draft already` : null;
    case 'delete':
      return null;
    default: {
      const unknown: never = action;
      return unknown;
    }
  }
}

/** The user actions this migration accepts now, in button order. */
export const allowedMigrationActions = (migration: LiveMigration): MigrationAction[] => MIGRATION_ACTIONS.filter((action) => refuseMigrationAction(action, migration) === null);

/** A draft may change its route, engine and purpose; once it has run, only the contract and who is notified. */
export function editableFields(migration: LiveMigration): ReadonlyArray<keyof MigrationChanges> {
  return migration.status === 'draft' ? ['origin', 'destination', 'flavor', 'engine', 'purpose', 'contract', 'notifyTo', 'recipe'] : ['contract', 'notifyTo'];
}
