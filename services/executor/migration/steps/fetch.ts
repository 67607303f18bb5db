import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { uploadKeys } from '#shared/blobs/blobKeys.ts';
import { displayUrl } from '#shared/net/displayUrl.ts';
import { done } from '#shared/workflow/stepOutcome.ts';
import { downloadInput } from '../fetch/downloadInput.ts';
import type { MigrationStep } from '../migrationStepContext.ts';

/** Where the customer's dump lands in the migration's input folder. */
export const inputDumpFile = (inputDir: string): string => join(inputDir, 'dump');

/**
 * Brings the customer's dump into the migration's input folder: downloads `pull_url` (resuming a
 * partial download, written aside and renamed), or copies an upload out of blob storage. The
 * sha256 and size are the step's facts, so a resumed run reuses them instead of downloading again.
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
    const part = `${file}.part`;
    await pipeline(await context.blobs.get(keys.dump), createWriteStream(part, { mode: 0o600 }), { signal: context.signal });
    await rm(file, { force: true });
    await rename(part, file);
    const { size } = await stat(file);
    await context.log(`copied the uploaded dump ${input.dumpName} (${size} bytes)`);
    return done({ bytes: size, sha256: input.sha256 });
  }
  throw new Error('the migration has no input: upload its dump first');
};
