import { done, type StepOutcome } from '#shared/workflow/stepOutcome.ts';
import type { MigrationStepContext } from '../migrationStepContext.ts';
import { artifactFile, storeArtifact } from './artifact.ts';

/** `pg_dump -Fc` of the working database (as its role), stored as an artifact of the run. */
export async function dumpArtifact(context: MigrationStepContext, kind: 'dump' | 'backup'): Promise<StepOutcome> {
  const work = context.migration.workingDatabase;
  const file = await artifactFile(context, '.dump');
  await context.log(`${kind} ${context.step.id}: dumping ${work}`);
  await context.databases.dump(work, file);
  return done({ artifact: await storeArtifact(context, kind, file) });
}
