import { suffixedName } from '#shared/instanceDatabase/databaseName.ts';
import type { InstanceState } from '#services/instances/domain/instance.ts';
import type { LiveMigration, MigrationSettings } from './migration.ts';

/**
 * What a migration's work is called, read from its events: the names are recorded when they are
 * decided, so renaming a kind never moves an older migration's databases or instances.
 */

/** The working database's checkpoint: recorded at creation since issue 24; before, `<work>_ck`. */
export const checkpointDatabaseOf = (migration: Pick<MigrationSettings, 'workingDatabase' | 'checkpointDatabase'>): string =>
  migration.checkpointDatabase ?? suffixedName(migration.workingDatabase, '_ck');

/** The working instance slug runs got before issue 24 (recorded nowhere): `<migration>-r<run>`, any user's slug too. */
export const legacyWorkingInstanceSlug = (migration: string, run: number): string => `${migration.slice(0, 34).replace(/-+$/, '')}-r${run}`;

/** The working instance recorded for run `run`, or null when its `instance` step has not asked for one. */
export const workingInstanceOfRun = (migration: LiveMigration, run: number): string | null => migration.workingInstances?.find((entry) => entry.run === run)?.instance ?? null;

/**
 * True when the instance is one a run of `migration` asked for (its own events say so: source
 * `migration`, that migration, and that run when given). Only such an instance may be reused by
 * the run or destroyed with the migration: a slug alone proves nothing.
 */
export function isWorkingInstanceOf(instance: InstanceState, migration: string, run?: number): boolean {
  if (instance.status === 'none') return false;
  const { source } = instance;
  return source.kind === 'migration' && source.migration === migration && (run === undefined || source.run === run);
}

/**
 * The instances a stop or delete may destroy: those its runs recorded, and for every run the slug
 * runs used before records existed (a run that asked for one then, and again under the new slug
 * after an upgrade, has both), for the executor to destroy only when `isWorkingInstanceOf` that run.
 */
export function workingInstanceCandidates(migration: LiveMigration): { instance: string; run: number }[] {
  const legacy = Array.from({ length: migration.lastNumber }, (_, index) => ({ instance: legacyWorkingInstanceSlug(migration.slug, index + 1), run: index + 1 }));
  return [...(migration.workingInstances ?? []), ...legacy];
}
