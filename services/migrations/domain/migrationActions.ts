import { failedInPreflight, type LiveMigration, type MigrationChanges, type MigrationInput, type MigrationStatus } from './migration.ts';

/**
 * Which actions a migration accepts, and why not otherwise: the one home of these rules. The
 * decider refuses with the reason (409), the web offers exactly the allowed ones, the API documents them.
 */
export const MIGRATION_ACTIONS = ['run', 'run-anyway', 'pause', 'resume', 'stop', 'delete'] as const;
export type MigrationAction = (typeof MIGRATION_ACTIONS)[number];

/** What the rules look at: the folded state has it, and so does the migration_detail read model. */
export interface MigrationActionView {
  slug: string;
  status: MigrationStatus;
  inputMode: MigrationInput['mode'];
  /** The last run failed in a pre-flight step. */
  preflightFailed: boolean;
  /** The recipe snapshot the migration follows now. */
  recipeSha256: string;
  /** When it is migrated: the recipe snapshot the successful run followed; null otherwise. */
  migratedRecipeSha256: string | null;
}

export const migrationActionView = (migration: LiveMigration): MigrationActionView => {
  const last = migration.runs.at(-1);
  return {
    slug: migration.slug,
    status: migration.status,
    inputMode: migration.input.mode,
    preflightFailed: last !== undefined && failedInPreflight(last),
    recipeSha256: migration.recipe.sha256,
    migratedRecipeSha256: migration.status === 'migrated' ? (last?.recipeSha256 ?? null) : null,
  };
};

/** Why `action` is refused for this migration, or null when it is allowed. */
export function refuseMigrationAction(action: MigrationAction, migration: MigrationActionView): string | null {
  const { slug, status } = migration;
  switch (action) {
    case 'run':
      if (migration.inputMode === 'none') return `${slug} has no input yet: upload its dump first`;
      if (status === 'queued' || status === 'running' || status === 'waiting') return `${slug} is ${status}; pause or stop its run first`;
      if (status === 'paused') return `${slug} is paused; resume it (or stop it to start over)`;
      return null;
    case 'run-anyway':
      if (!migration.preflightFailed) return `run-anyway only overrides a run that failed in pre-flight; ${slug} is ${status}`;
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
export const allowedMigrationActions = (migration: MigrationActionView): MigrationAction[] => MIGRATION_ACTIONS.filter((action) => refuseMigrationAction(action, migration) === null);

/**
 * Why the migration's page does not offer an action the API accepts, or null. A migrated
 * migration's *Run* with the recipe its successful run followed would only redo a finished
 * migration: the page offers it again once a resync changed the recipe. The API keeps the
 * interface's rule (a run from scratch from any state without a resumable failure).
 */
export function notOffered(action: MigrationAction, migration: MigrationActionView): string | null {
  if (action === 'run' && migration.status === 'migrated' && migration.migratedRecipeSha256 === migration.recipeSha256) {
    return `${migration.slug} is migrated with its current recipe: resync it to a changed recipe to run it again, or stop it to start over`;
  }
  return null;
}

/** The buttons the migration's page shows: the allowed actions it offers, in order. */
export const offeredMigrationActions = (migration: MigrationActionView): MigrationAction[] => allowedMigrationActions(migration).filter((action) => notOffered(action, migration) === null);

/** A draft may change its route, engine and purpose; once it has run, only the contract and who is notified. */
export function editableFields(migration: LiveMigration): ReadonlyArray<keyof MigrationChanges> {
  return migration.status === 'draft' ? ['origin', 'destination', 'flavor', 'engine', 'purpose', 'contract', 'notifyTo', 'recipe', 'project', 'code'] : ['contract', 'notifyTo'];
}
