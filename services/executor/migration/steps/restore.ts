import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { done, fail } from '#shared/workflow/stepOutcome.ts';
import { detectDumpFormat } from '../../database/dumpFormat.ts';
import { describeManifest, manifestMismatch } from '../backup/backupManifest.ts';
import { extractBackupDump, isZipArchive, missingDump, readBackupCatalog } from '../backup/backupArchive.ts';
import { InputRefusedError } from '../inputRefused.ts';
import type { MigrationStepContext, MigrationStep } from '../migrationStepContext.ts';
import { rebuildWorkingFilestore } from '../workingFilestore.ts';
import { takeCheckpoint } from './checkpoint.ts';
import { inputDumpFile, inputFilestoreFile } from './fetch.ts';
import { bytesText } from './stepParams.ts';

/** Where the dump.sql of an ERP backup .zip is extracted to; removed once restored (the zip stays). */
export const backupDumpFile = (inputDir: string): string => join(inputDir, 'dump.sql');

/**
 * Restores the fetched input into the working database (recreated empty, owned by its own role: a
 * customer's dump never runs as the server's admin) and rebuilds the working filestore from it,
 * then takes the first checkpoint: every later retry or resume starts from a copy of it instead of
 * restoring again. The input is a dump (custom or plain) or an ERP backup .zip, whose manifest
 * must name the migration's origin, whose dump.sql is extracted (held to the filestore's byte and
 * ratio limits) and whose `filestore/` becomes the working filestore; a filestore archive uploaded
 * beside the input goes on top of it. A refused input fails the step without a retry, saying why.
 */
export const restore: MigrationStep = async (context) => {
  try {
    return await restoreInput(context);
  } catch (error) {
    if (error instanceof InputRefusedError) return fail(`restore: ${error.message}`, { retryable: false });
    throw error;
  }
};

async function restoreInput(context: MigrationStepContext) {
  const { paths, migration, signal } = context;
  const input = inputDumpFile(paths.input);
  const target = migration.workingDatabase;
  const backup = (await isZipArchive(input)) ? input : null;
  let dumpFile = input;
  let manifestFacts = {};
  if (backup !== null) {
    const catalog = await readBackupCatalog(backup, signal);
    const manifest = catalog.manifest;
    await context.log(`the input is an ERP backup .zip: ${catalog.top.join(', ')}; ${manifest ? `manifest: ${describeManifest(manifest)}` : 'no manifest.json (the ERP version is not checked)'}`);
    const mismatch = manifest && manifestMismatch(manifest, migration.origin);
    if (mismatch) return fail(`restore: ${mismatch}`, { retryable: false });
    const missing = missingDump(catalog);
    if (missing) return fail(`restore: ${missing}`, { retryable: false });
    dumpFile = backupDumpFile(paths.input);
    const { bytes } = await extractBackupDump(backup, dumpFile, context.filestoreLimits, signal);
    await context.log(`extracted dump.sql from the backup: ${bytesText(bytes)}`);
    manifestFacts = manifest ? { backup: { version: manifest.version ?? manifest.series ?? null, modules: manifest.modules ?? null } } : { backup: {} };
  }
  const archive = await uploadedFilestore(context);
  const filestoreDir = join(paths.filestore, target);
  const log = context.toolLog();
  let filestore;
  try {
    filestore = await rebuildWorkingFilestore(filestoreDir, { backupZip: backup, archive }, { limits: context.filestoreLimits, signal, log, root: paths.dataRoot });
  } finally {
    log.end();
  }
  await context.log(filestoreLine(filestoreDir, filestore, backup !== null, archive !== null));
  const format = await detectDumpFormat(dumpFile);
  await context.log(`restoring the ${format} dump into ${target}`);
  await context.databases.restore(dumpFile, format, target);
  // The zip keeps the dump; the extracted copy would only double the input's room on disk.
  if (dumpFile !== input) await rm(dumpFile, { force: true });
  await takeCheckpoint(context);
  return done({ format, database: target, filestoreFiles: filestore.files, ...manifestFacts });
}

/** The filestore archive `fetch` copied beside an uploaded dump, or null when the upload has none. */
async function uploadedFilestore(context: MigrationStepContext): Promise<string | null> {
  const { input } = context.migration;
  if (input.mode !== 'upload' || input.filestoreName === null) return null;
  const file = inputFilestoreFile(context.paths.input);
  await access(file).catch((error: unknown) => {
    throw new Error(`the uploaded filestore archive ${input.filestoreName} is not in ${context.paths.input}: run the migration again from fetch`, { cause: error });
  });
  return file;
}

function filestoreLine(dir: string, counts: { files: number; fromBackup: number; fromArchive: number }, backup: boolean, archive: boolean): string {
  const sources = [backup ? `${counts.fromBackup} from the backup's filestore/` : null, archive ? `${counts.fromArchive} from the uploaded filestore archive` : null].filter((part) => part !== null);
  return sources.length === 0
    ? `the input has no filestore: the working filestore ${dir} starts empty`
    : `working filestore ${dir} rebuilt: ${counts.files} file(s) (${sources.join(', then ')})`;
}
