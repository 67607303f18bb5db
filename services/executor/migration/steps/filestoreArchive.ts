import { mkdir, rename, rm } from 'node:fs/promises';
import { done } from '#shared/workflow/stepOutcome.ts';
import { runTool } from '../../database/toolProcess.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { artifactFile, storeArtifact } from './artifact.ts';

/**
 * The working filestore (`paths.filestore`, holding `<database>/ab/…`) as a `.tar.gz` artifact of
 * kind `filestore`, made by bsdtar (stopped when the step is aborted), written aside and renamed.
 * An empty filestore gives an empty archive. Forja's filestore extraction takes such an archive
 * back (it finds the database's folder inside).
 */
export const filestoreArchive: MigrationStep = async (context) => {
  const file = await artifactFile(context, '.tar.gz');
  const part = `${file}.partial`;
  await mkdir(context.paths.filestore, { recursive: true });
  await context.log(`filestore_archive ${context.step.id}: archiving ${context.paths.filestore}`);
  const log = context.toolLog();
  try {
    await runTool('bsdtar', ['-czf', part, '-C', context.paths.filestore, '.'], { log, signal: context.signal, what: `archiving the filestore ${context.paths.filestore}` });
    await rename(part, file);
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  } finally {
    log.end();
  }
  return done({ artifact: await storeArtifact(context, 'filestore', file) });
};
