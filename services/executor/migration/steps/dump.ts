import type { MigrationStep } from '../migrationStepContext.ts';
import { dumpArtifact } from './dumpArtifact.ts';

/** The migrated database as a custom-format dump: the run's result, downloadable. */
export const dump: MigrationStep = (context) => dumpArtifact(context, 'dump');
