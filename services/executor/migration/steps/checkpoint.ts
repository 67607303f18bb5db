import { checkpointDatabaseOf } from '#services/migrations/domain/workingNames.ts';
import type { MigrationStepContext } from '../migrationStepContext.ts';

/**
 * Snapshots the working database (after `restore`, and after every step that changed it and
 * succeeded) into the checkpoint database the migration recorded (`<work>_ck` for older ones). There
 * is one per migration, replaced by each checkpoint: the state after the last step that changed
 * the database and finished.
 */
export async function takeCheckpoint(context: MigrationStepContext): Promise<void> {
  const work = context.migration.workingDatabase;
  const snapshot = checkpointDatabaseOf(context.migration);
  await context.log(`taking checkpoint: snapshot ${snapshot} of ${work}`);
  const started = Date.now();
  await context.databases.snapshot(work, snapshot);
  await context.log(`checkpoint ${snapshot} taken in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Rebuilds the working database from the last checkpoint, dropping whatever a half-done attempt
 * left in it. A database-changing step calls it first when `context.dirty`.
 * @throws when there is no checkpoint (the run never restored, or it was dropped).
 */
export async function restoreCheckpoint(context: MigrationStepContext): Promise<void> {
  const work = context.migration.workingDatabase;
  const snapshot = checkpointDatabaseOf(context.migration);
  if (!(await context.databases.exists(snapshot))) {
    throw new Error(`cannot rebuild ${work} from its last checkpoint: there is no snapshot ${snapshot} (a run must restore the input first)`);
  }
  await context.log(`the last attempt of ${context.step.id} may have left a half-done change: rebuilding ${work} from checkpoint ${snapshot}`);
  await context.databases.restoreFromSnapshot(snapshot, work);
}
