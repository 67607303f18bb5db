import { createTwoFilesPatch } from 'diff';
import { DomainError } from '#shared/decider/decider.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { isJobEnded } from '#shared/workflow/jobState.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream, type LiveMigration, type RecipeSnapshot } from '#services/migrations/domain/migration.ts';
import { planDiff, reuseAfterAdopt } from '#services/migrations/domain/resync.ts';
import type { MigrationRecipes } from './migrationRecipes.ts';

/**
 * Resync: how a migration's recipe snapshot differs from the current recipe of its
 * route, and the operator's decision to adopt the current one or keep the snapshot.
 */
export function migrationResync(store: EventStore, recipes: MigrationRecipes) {
  const load = async (slug: string): Promise<LiveMigration> => {
    const { state } = await aggregateStream(store, migrationDecider, migrationStream(slug));
    if (state.status === 'none' || state.deleted) throw new DomainError('no such migration', 'not_found');
    return state;
  };
  /** The current recipe's snapshot and the plan it makes for this migration. */
  const current = async (migration: LiveMigration) => {
    const recipe = await recipes.snapshotFor({ origin: migration.origin, destination: migration.destination }, migration.flavor);
    return { recipe, plan: recipes.planFor({ ...migration, recipe }) };
  };
  /** Why a resync cannot be applied now, or null. */
  const blockedBy = (migration: LiveMigration): string | null => {
    const last = migration.runs.at(-1);
    return last && !isJobEnded(last.job) ? `run ${last.number} is ${last.job.status}: resync once it has ended (stop it, or let it fail or finish)` : null;
  };

  return {
    /** What the resync page and `GET …/resync` show. A current recipe that cannot be used is said, not thrown. */
    async view(slug: string) {
      const migration = await load(slug);
      const from = { key: migration.recipe.key, sha256: migration.recipe.sha256 };
      let found: { recipe: RecipeSnapshot; plan: ReturnType<MigrationRecipes['planFor']> };
      try {
        found = await current(migration);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return { slug, up_to_date: false, from, to: null, current_error: error.message, blocked: blockedBy(migration), steps: [], diff: '', adopt: null };
      }
      const steps = planDiff(recipes.planFor(migration), found.plan);
      const reuse = reuseAfterAdopt(migration.runs.at(-1), found.plan);
      return {
        slug,
        up_to_date: found.recipe.sha256 === migration.recipe.sha256,
        from,
        to: { key: found.recipe.key, sha256: found.recipe.sha256 },
        current_error: null,
        blocked: blockedBy(migration),
        steps,
        diff: createTwoFilesPatch(`snapshot (${from.key})`, `current (${found.recipe.key})`, migration.recipe.text, found.recipe.text, from.sha256.slice(0, 12), found.recipe.sha256.slice(0, 12), { context: 3 }),
        adopt: { reuse: reuse.reuse, checkpoint: reuse.checkpoint, restore_again: reuse.restoreAgain, resumes: migration.runs.at(-1)?.job.status === 'failed' },
      };
    },

    /** Records the decision; `adopt` replaces the snapshot with the current recipe (and its plan, for a resume). */
    async decide(slug: string, decision: 'adopt' | 'keep', metadata: EventMetadata) {
      const migration = await load(slug);
      const { recipe, plan } = await current(migration);
      const changes = planDiff(recipes.planFor(migration), plan).filter((row) => row.change !== 'same');
      const command = { type: 'ResyncMigration' as const, decision, recipe, plan, reuse: reuseAfterAdopt(migration.runs.at(-1), plan), changes };
      return handleCommand(store, migrationDecider, migrationStream(slug), command, { metadata });
    },
  };
}

export type MigrationResync = ReturnType<typeof migrationResync>;
