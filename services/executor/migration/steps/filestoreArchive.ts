import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { lstatBeneath } from '#shared/fs/beneath.ts';
import { done } from '#shared/workflow/stepOutcome.ts';
import { runTool } from '../../database/toolProcess.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { artifactFile, storeArtifact } from './artifact.ts';

/**
 * The working filestore (`paths.filestore`, holding `<database>/ab/…`) as a `.tar.gz` artifact of
 * kind `filestore`, made by bsdtar (stopped when the step is aborted), written aside and renamed.
 * bsdtar runs as the account that owns the filestore (the migration's: its ERP writes there), so
 * a link it left only reaches what it can read itself; the archive is a file root opened.
 * An empty filestore gives an empty archive. Forja's filestore extraction takes such an archive
 * back (it finds the database's folder inside).
 */
export const filestoreArchive: MigrationStep = async (context) => {
  const file = await artifactFile(context, '.tar.gz');
  const part = `${file}.partial`;
  await mkdir(context.paths.filestore, { recursive: true });
  await context.log(`filestore_archive ${context.step.id}: archiving ${context.paths.filestore}`);
  const owner = lstatBeneath(context.paths.dataRoot, relative(context.paths.dataRoot, context.paths.filestore));
  const as = owner && owner.uid !== process.getuid?.() ? { uid: owner.uid, gid: owner.gid } : null;
  const log = context.toolLog();
  const out = openSync(part, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  try {
    try {
      await runTool('bsdtar', ['-czf', '-', '-C', context.paths.filestore, '.'], { log, signal: context.signal, what: `archiving the filestore ${context.paths.filestore}`, stdout: out, as });
    } finally {
      closeSync(out);
    }
    await rename(part, file);
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  } finally {
    log.end();
  }
  return done({ artifact: await storeArtifact(context, 'filestore', file) });
};
