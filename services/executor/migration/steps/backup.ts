import type { MigrationStep } from '../migrationStepContext.ts';
import { dumpArtifact } from './dumpArtifact.ts';

/** The database as it is before the migration changes it ("you absolutely must make a backup"): a custom-format dump kept with the run. */
export const backup: MigrationStep = (context) => dumpArtifact(context, 'backup');
