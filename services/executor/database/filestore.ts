import { mkdir, readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Owner } from '#shared/fs/beneath.ts';
import type { Writable } from 'node:stream';
import { throwIfAborted } from '../abortError.ts';
import { DEFAULT_FILESTORE_LIMITS, type FilestoreLimits } from './filestoreLimits.ts';
import { existsAs, openStaging, tarAs, type Staging } from './filestoreStaging.ts';
import { logLine } from './logLine.ts';
import { unpackFilestore } from './unpackFilestore.ts';

/** Where the ERP keeps a database's attachments: `<data_dir>/filestore/<database>`. */
export function filestoreDir(dataDir: string, database: string): string {
  return join(dataDir, 'filestore', database);
}

/** The ERP spreads attachments over folders named by the first two hex digits of their hash. */
const HASH_FOLDER = /^[0-9a-f]{2}$/;

/** The job's signal: once it fired, the old filestore is kept and the call rejects with the abort's reason. */
export interface FilestoreOptions {
  signal?: AbortSignal;
  /**
   * Forja's folder the destination lies below (FORJA_DATA_DIR): the destination's parent is
   * opened from it without following links, and staging happens in its `staging/`. Default: the
   * folder above the destination's parent (trusted as it is).
   */
  root?: string;
}

export interface CopyOptions extends FilestoreOptions {
  /** The account that owns `fromDir` (another instance's, a migration's): it is read as that account. Null: as Forja. */
  reader?: Owner | null;
}

/** A copy only reads what its tenant wrote: the upload limits do not apply. */
const NO_LIMITS: FilestoreLimits = { maxBytes: Number.MAX_SAFE_INTEGER, maxFiles: Number.MAX_SAFE_INTEGER, maxRatio: Number.MAX_SAFE_INTEGER };

/**
 * Makes `toDir` a copy of `fromDir`, replacing what was there. `fromDir` is read as `reader`
 * (tar, run as its tenant) and unpacked by Forja's checked unpacker in a staging folder, then
 * swapped in (filestoreStaging.ts), so an interrupted copy never passes for a complete one and a
 * re-run starts over. A missing `fromDir` (an ERP that never stored an attachment) gives an empty `toDir`.
 */
export async function copyFilestore(fromDir: string, toDir: string, log: Writable, { signal, root, reader = null }: CopyOptions = {}): Promise<{ files: number; sourceExisted: boolean }> {
  const from = resolve(fromDir);
  const to = resolve(toDir);
  if (from === to || to.startsWith(from + sep) || from.startsWith(to + sep)) throw new Error(`cannot copy filestore ${from} to ${to}: one holds the other`);
  const what = `copying filestore ${from} to ${to}`;
  throwIfAborted(signal, what);
  const staging = openStaging(root ?? dirname(dirname(to)));
  const sourceExisted = existsAs(from, reader);
  try {
    const tree = join(staging.dir, 'tree');
    await mkdir(tree);
    if (sourceExisted) {
      logLine(log, what);
      const archive = join(staging.dir, 'copy.tar');
      await tarAs(from, archive, reader, signal).catch((error: unknown) => {
        throwIfAborted(signal, what);
        throw error;
      });
      await unpackFilestore(archive, tree, NO_LIMITS, signal).catch((error: unknown) => {
        throwIfAborted(signal, what);
        throw new Error(`filestore refused: ${(error as Error).message}`, { cause: error });
      });
    } else {
      logLine(log, `filestore ${from} does not exist: ${to} starts empty`);
    }
    throwIfAborted(signal, what);
    return { files: await replaceWith(tree, staging, to, log), sourceExisted };
  } finally {
    staging.remove();
  }
}

/**
 * Extracts a filestore archive (.zip, .tar, .tar.gz) into `toDir`, replacing it. A top folder
 * `filestore/` or one named after the database is stripped, so an ERP backup .zip (dump.sql,
 * manifest.json, filestore/) gives its filestore. The archive is refused, and the old filestore
 * kept, when it would pass `limits` (checked entry by entry before anything is written, so a bomb
 * never fills the disk), or holds a path leading out of the folder, a link or a special file (see
 * unpackFilestore). It is unpacked in a staging folder only root reaches (filestoreStaging.ts).
 */
export async function extractFilestore(
  archiveFile: string,
  toDir: string,
  log: Writable,
  limits: FilestoreLimits = DEFAULT_FILESTORE_LIMITS,
  { signal, root }: FilestoreOptions = {},
): Promise<{ files: number }> {
  const to = resolve(toDir);
  throwIfAborted(signal, `extracting filestore archive ${archiveFile}`);
  const staging = openStaging(root ?? dirname(dirname(to)));
  try {
    const tree = join(staging.dir, 'tree');
    await mkdir(tree);
    logLine(log, `extracting filestore archive ${archiveFile} into ${to}`);
    await unpackFilestore(archiveFile, tree, limits, signal).catch((error: unknown) => {
      throwIfAborted(signal, `extracting filestore archive ${archiveFile}`);
      const message = `cannot extract filestore archive ${archiveFile}: ${error instanceof Error ? error.message : String(error)}`;
      logLine(log, message);
      throw new Error(message, { cause: error });
    });
    const found = await filestoreRoot(tree);
    if (found !== tree) logLine(log, `filestore archive: using its folder ${relative(tree, found)}/`);
    return { files: await replaceWith(found, staging, to, log) };
  } finally {
    staging.remove();
  }
}

/** Checks and counts `tree`, then swaps it in for `to` (the rest of the staging folder goes with it). */
async function replaceWith(tree: string, staging: Staging, to: string, log: Writable): Promise<number> {
  const files = await countRegularFiles(tree, tree);
  staging.swapIn(tree, to);
  logLine(log, `filestore ${to} ready: ${files} file(s)`);
  return files;
}

/**
 * Walks down to the folder holding the hash folders, at most three levels: into a `filestore`
 * folder whatever lies beside it (an ERP backup's dump.sql, a data dir's sessions/), and into a
 * folder that is alone and not a hash folder (the database's). `filestore/<database>/ab/…` gives
 * `filestore/<database>`.
 */
async function filestoreRoot(staging: string): Promise<string> {
  let dir = staging;
  for (let depth = 0; depth < 3; depth++) {
    const entries = await readdir(dir, { withFileTypes: true });
    const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    const only = entries.length === 1 ? folders[0] : undefined;
    const next = folders.includes('filestore') ? 'filestore' : only !== undefined && !HASH_FOLDER.test(only) && only !== 'checklist' ? only : undefined;
    if (next === undefined) break;
    dir = join(dir, next);
  }
  return dir;
}

async function countRegularFiles(dir: string, root: string): Promise<number> {
  let files = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files += await countRegularFiles(path, root);
    else if (entry.isFile()) files++;
    else throw new Error(`filestore refused: ${relative(root, path)} is ${entry.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; a filestore holds only files and folders`);
  }
  return files;
}
