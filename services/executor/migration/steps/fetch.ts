import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { uploadKeys } from '#shared/blobs/blobKeys.ts';
import { displayUrl } from '#shared/net/displayUrl.ts';
import { done } from '#shared/workflow/stepOutcome.ts';
import { downloadInput } from '../fetch/downloadInput.ts';
import type { MigrationStep, MigrationStepContext } from '../migrationStepContext.ts';

/** Where the customer's dump (or ERP backup .zip) lands in the migration's input folder. */
export const inputDumpFile = (inputDir: string): string => join(inputDir, 'dump');

/** Where a filestore archive uploaded beside the dump lands in the migration's input folder. */
export const inputFilestoreFile = (inputDir: string): string => join(inputDir, 'filestore');

/**
 * Brings the customer's dump into the migration's input folder: downloads `pull_url` (resuming a
 * partial download, written aside and renamed), or copies an upload out of blob storage, with its
 * filestore archive when it has one. The sha256 and size are the step's facts, so a resumed run
 * reuses them instead of downloading again.
 */
export const fetch: MigrationStep = async (context) => {
  const { input } = context.migration;
  await mkdir(context.paths.input, { recursive: true });
  const file = inputDumpFile(context.paths.input);
  if (input.mode === 'pull') {
    await context.log(`downloading ${displayUrl(input.pullUrl)}`);
    const result = await downloadInput({ url: input.pullUrl, toFile: file, allow: context.pull.allow, maxBytes: context.pull.maxBytes, signal: context.signal, log: (line) => context.log(line) });
    await context.log(`downloaded ${result.bytes} bytes, sha256 ${result.sha256}${result.resumedFrom > 0 && result.resumedFrom === result.bytes ? ' (kept from an earlier attempt)' : result.resumedFrom ? ` (resumed at byte ${result.resumedFrom})` : ''}`);
    return done({ bytes: result.bytes, sha256: result.sha256 });
  }
  if (input.mode === 'upload') {
    const keys = uploadKeys(input.uploadId);
    const bytes = await copyBlob(context, keys.dump, file);
    await context.log(`copied the uploaded dump ${input.dumpName} (${bytes} bytes)`);
    const filestore = inputFilestoreFile(context.paths.input);
    if (input.filestoreName === null) {
      // A file an earlier input left would be unpacked into this one's filestore.
      await rm(filestore, { force: true });
      return done({ bytes, sha256: input.sha256 });
    }
    const filestoreBytes = await copyBlob(context, keys.filestore, filestore);
    await context.log(`copied the uploaded filestore archive ${input.filestoreName} (${filestoreBytes} bytes)`);
    return done({ bytes, sha256: input.sha256, filestoreBytes });
  }
  throw new Error('the migration has no input: upload its dump first');
};

/** Copies a blob to `file`, written aside and renamed: a file at `file` is always whole, and a retry starts the copy over. */
async function copyBlob(context: MigrationStepContext, key: string, file: string): Promise<number> {
  const part = `${file}.part`;
  try {
    await pipeline(await context.blobs.get(key), createWriteStream(part, { mode: 0o600 }), { signal: context.signal });
    await rm(file, { force: true });
    await rename(part, file);
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
  return (await stat(file)).size;
}
