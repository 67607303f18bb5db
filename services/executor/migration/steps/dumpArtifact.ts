import { done, type StepOutcome } from '#shared/workflow/stepOutcome.ts';
import type { MigrationStepContext } from '../migrationStepContext.ts';
import { artifactFile, storeArtifact } from './artifact.ts';

/** `17.0` of `17.0.1.3`: the ERP's major version, as instances name it. */
export function majorVersion(moduleVersion: string): string | null {
  return /^(\d+\.\d+)(\.|$)/.exec(moduleVersion.trim())?.[1] ?? null;
}

/**
 * The version of the ERP the database is at: `latest_version` of `base`. Null, said in the run's
 * log, when the database does not tell (no module table, no `base`): the artifact is stored all the
 * same, and whoever reads it falls back to the migration's route.
 */
async function databaseVersion(context: MigrationStepContext, database: string): Promise<string | null> {
  try {
    const rows = await context.databases.query<{ latest_version: string | null }>(database, `select latest_version from ir_module_module where name = 'base'`, undefined, { readOnly: true });
    const version = majorVersion(rows[0]?.latest_version ?? '');
    if (!version) await context.log(`${context.step.id}: the base module has no version in ${database}; the artifact's ERP version is not recorded`);
    return version;
  } catch (error) {
    await context.log(`${context.step.id}: could not read the base module's version in ${database} (${(error as Error).message}); the artifact's ERP version is not recorded`);
    return null;
  }
}

/** `pg_dump -Fc` of the working database (as its role), stored as an artifact of the run with the ERP version of that database. */
export async function dumpArtifact(context: MigrationStepContext, kind: 'dump' | 'backup'): Promise<StepOutcome> {
  const work = context.migration.workingDatabase;
  const file = await artifactFile(context, '.dump');
  await context.log(`${kind} ${context.step.id}: dumping ${work}`);
  const erpVersion = await databaseVersion(context, work);
  await context.databases.dump(work, file);
  const artifact = await storeArtifact(context, kind, file);
  return done({ artifact: erpVersion ? { ...artifact, erpVersion } : artifact });
}
