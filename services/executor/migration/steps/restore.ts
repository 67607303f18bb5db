import { done } from '#shared/workflow/stepOutcome.ts';
import { detectDumpFormat } from '../../database/dumpFormat.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { takeCheckpoint } from './checkpoint.ts';
import { inputDumpFile } from './fetch.ts';

/**
 * Restores the fetched dump into the working database (recreated empty, owned by its own role:
 * a customer's dump never runs as the server's admin), then takes the first checkpoint: every later
 * retry or resume starts from a copy of it instead of restoring again.
 */
export const restore: MigrationStep = async (context) => {
  const file = inputDumpFile(context.paths.input);
  const format = await detectDumpFormat(file);
  const target = context.migration.workingDatabase;
  await context.log(`restoring the ${format} dump into ${target}`);
  await context.databases.restore(file, format, target);
  await takeCheckpoint(context);
  return done({ format, database: target });
};
