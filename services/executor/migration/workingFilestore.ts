import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { throwIfAborted } from '../abortError.ts';
import { extractFilestore } from '../database/filestore.ts';
import { openStaging } from '../database/filestoreStaging.ts';
import type { FilestoreLimits } from '../database/filestoreLimits.ts';
import { unpackFilestore } from '../database/unpackFilestore.ts';
import { backupFilestorePick } from './backup/backupArchive.ts';
import { InputRefusedError, isSystemError } from './inputRefused.ts';

/** Where the working filestore's files come from, in order: later ones win over earlier ones. */
export interface FilestoreSources {
  /** An ERP backup .zip: its `filestore/` folder. */
  backupZip: string | null;
  /** A filestore archive uploaded beside the dump (.zip, .tar, .tar.gz; a top `filestore/` or database folder is stripped). */
  archive: string | null;
}

export interface WorkingFilestoreOptions {
  limits: FilestoreLimits;
  signal: AbortSignal;
  /** The run's tool log (the extraction's lines). */
  log: Writable;
  /** FORJA_DATA_DIR: the filestore is built in its `staging/`, out of the migration ERP's reach (filestoreStaging.ts). Default: above `dir`'s parent. */
  root?: string;
}

/**
 * Rebuilds the working filestore `dir` from the input alone: built in a staging folder only root
 * reaches (never beside `dir`, in a folder the migration's ERP writes) and swapped in for `dir`, so a retry or a resume never finds files an earlier attempt, or the ERP of an earlier
 * run, left there. No source gives an empty filestore. Each archive is checked entry by entry as
 * an instance's upload is (limits, safe paths, no links or special files); a refused one rejects
 * with an InputRefusedError and leaves `dir` as it was.
 */
export async function rebuildWorkingFilestore(dir: string, sources: FilestoreSources, options: WorkingFilestoreOptions): Promise<{ files: number; fromBackup: number; fromArchive: number }> {
  const { limits, signal, log } = options;
  const root = options.root ?? dirname(dirname(dir));
  const folder = openStaging(root);
  const staging = join(folder.dir, 'tree');
  const uploaded = join(folder.dir, 'archive');
  await mkdir(staging);
  try {
    let fromBackup = 0;
    let fromArchive = 0;
    if (sources.backupZip !== null) {
      await refused(signal, `the backup's filestore/`, () => unpackFilestore(sources.backupZip!, staging, limits, signal, backupFilestorePick));
      fromBackup = await countFiles(staging);
    }
    if (sources.archive !== null) {
      fromArchive = (await refused(signal, 'the uploaded filestore archive', () => extractFilestore(sources.archive!, uploaded, log, limits, { signal, root }))).files;
      await moveInto(uploaded, staging, signal);
    }
    const files = await countFiles(staging);
    folder.swapIn(staging, dir);
    return { files, fromBackup, fromArchive };
  } finally {
    folder.remove();
  }
}

/** The input's fault, said as such (with `what`), unless the machine failed or the step was stopped. */
async function refused<T>(signal: AbortSignal, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throwIfAborted(signal, `unpacking ${what}`);
    const cause = (error as Error).cause ?? error;
    if (isSystemError(cause)) throw error;
    const reason = (error as Error).message.replace(/^cannot extract filestore archive \S+: /, '');
    throw new InputRefusedError(`${what} was refused: ${reason}; nothing of it was kept`, { cause: error });
  }
}

/** Moves the tree `from` into `to`, a file of `from` replacing one of the same path. */
async function moveInto(from: string, to: string, signal: AbortSignal): Promise<void> {
  throwIfAborted(signal, 'merging the uploaded filestore');
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      const existing = await readdir(target, { withFileTypes: true }).then(
        () => 'folder',
        (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? 'none' : 'other'),
      );
      if (existing === 'folder') {
        await moveInto(source, target, signal);
        continue;
      }
    }
    await rm(target, { recursive: true, force: true });
    await rename(source, target);
  }
}

async function countFiles(dir: string): Promise<number> {
  let files = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) files += await countFiles(join(dir, entry.name));
    else if (entry.isFile()) files++;
  }
  return files;
}
