import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { Writable } from 'node:stream';
import { lstatBeneath } from '#shared/fs/beneath.ts';
import { throwIfAborted } from '../abortError.ts';
import { extractFilestore } from '../database/filestore.ts';
import { existsAs, openStaging, tarAs } from '../database/filestoreStaging.ts';
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

/** A filestore the upgrade platform returned: the `filestore/` folder a download brought (in a folder only Forja reaches), or a result .zip holding one. */
export type ReturnedFilestore = { folder: string } | { zip: string };

/**
 * Merges a returned filestore into the working filestore `dir`, as the vendor's script does
 * (the old filestore copied, the new one laid over it: attachments the upgrade moved out of the
 * database, new standard images). `dir` is read as the account that owns it (tarAs), the returned
 * files are checked as an upload is (limits, safe paths, no links), the merge is built in staging
 * and swapped in: an interrupted merge leaves `dir` as it was, and a second merge of the same
 * files changes nothing.
 */
export async function mergeReturnedFilestore(dir: string, returned: ReturnedFilestore, options: WorkingFilestoreOptions): Promise<{ added: number; files: number }> {
  const { limits, signal } = options;
  const root = options.root ?? dirname(dirname(dir));
  const owner = lstatBeneath(root, relative(root, dir));
  const reader = owner && owner.uid !== process.getuid?.() ? { uid: owner.uid, gid: owner.gid } : null;
  const folder = openStaging(root);
  const tree = join(folder.dir, 'tree');
  const laid = join(folder.dir, 'returned');
  await mkdir(tree);
  await mkdir(laid);
  try {
    if (existsAs(dir, reader)) {
      await tarAs(dir, join(folder.dir, 'current.tar'), reader, signal);
      await unpackFilestore(join(folder.dir, 'current.tar'), tree, UNLIMITED, signal);
    }
    if ('zip' in returned) {
      await refused(signal, `the result's filestore/`, () => unpackFilestore(returned.zip, laid, limits, signal, backupFilestorePick));
    } else {
      await tarAs(returned.folder, join(folder.dir, 'returned.tar'), null, signal);
      await refused(signal, 'the returned filestore/', () => unpackFilestore(join(folder.dir, 'returned.tar'), laid, limits, signal));
    }
    const added = await countFiles(laid);
    await moveInto(laid, tree, signal);
    const files = await countFiles(tree);
    folder.swapIn(tree, dir);
    return { added, files };
  } finally {
    folder.remove();
  }
}

/** The working filestore is the tenant's own: reading it back is not an upload. */
const UNLIMITED: FilestoreLimits = { maxBytes: Number.MAX_SAFE_INTEGER, maxFiles: Number.MAX_SAFE_INTEGER, maxRatio: Number.MAX_SAFE_INTEGER };

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
