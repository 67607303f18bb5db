import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { done, fail } from '#shared/workflow/stepOutcome.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { bytesText, numberParam } from './stepParams.ts';

/**
 * Room to work: the free space of the filesystem holding FORJA_DATA_DIR (where the migration's
 * dumps, artifacts and filestore go) must be at least `params.freeFactor` times the working
 * database's size. The database server's own disk is not seen from here when it is another
 * machine: that is the operator's to watch.
 */
export const disk: MigrationStep = async (context) => {
  const { step } = context;
  const factor = numberParam(step, 'freeFactor');
  const size = await context.databases.size(context.migration.workingDatabase);
  const free = await freeBytes(context.paths.root);
  const needed = Math.ceil(size * factor);
  const figures = `${bytesText(free)} free, ${factor} × the database's ${bytesText(size)} = ${bytesText(needed)} needed`;
  if (free < needed) return fail(`disk ${step.id}: not enough space for the migration's files: ${figures}`, { retryable: false });
  await context.log(`disk ${step.id}: ${figures}`);
  return done({ freeBytes: free, databaseBytes: size, neededBytes: needed });
};

/** Free space for an unprivileged writer at `path`, or at its nearest existing folder (the migration's may not exist yet). */
async function freeBytes(path: string): Promise<number> {
  for (let at = path; ; at = dirname(at)) {
    const stats = await statfs(at).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' && dirname(at) !== at ? null : Promise.reject(error)));
    if (stats) return stats.bavail * stats.bsize;
  }
}
