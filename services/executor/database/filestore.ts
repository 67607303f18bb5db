import { cp, lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Writable } from 'node:stream';
import { throwIfAborted } from '../abortError.ts';
import { DEFAULT_FILESTORE_LIMITS, type FilestoreLimits } from './filestoreLimits.ts';
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
}

/**
 * Makes `toDir` a copy of `fromDir`, replacing what was there. The copy is built beside `toDir`
 * and renamed into place, so an interrupted copy never passes for a complete one, and a re-run
 * starts over. A missing `fromDir` (an ERP that never stored an attachment) gives an empty `toDir`.
 */
export async function copyFilestore(fromDir: string, toDir: string, log: Writable, { signal }: FilestoreOptions = {}): Promise<{ files: number; sourceExisted: boolean }> {
  const from = resolve(fromDir);
  const to = resolve(toDir);
  if (from === to || to.startsWith(from + sep) || from.startsWith(to + sep)) throw new Error(`cannot copy filestore ${from} to ${to}: one holds the other`);
  const what = `copying filestore ${from} to ${to}`;
  throwIfAborted(signal, what);
  const staging = await freshStaging(to);
  const sourceExisted = (await lstat(from).catch(() => null)) !== null;
  try {
    if (sourceExisted) {
      logLine(log, `copying filestore ${from} to ${to}`);
      // cp takes no signal; its filter, asked before each file, stops it.
      const stopOnAbort = {
        filter: () => {
          throwIfAborted(signal, what);
          return true;
        },
      };
      await cp(from, staging, { recursive: true, preserveTimestamps: true, errorOnExist: true, force: false, ...stopOnAbort });
    } else {
      logLine(log, `filestore ${from} does not exist: ${to} starts empty`);
    }
    throwIfAborted(signal, what);
    return { files: await replaceWith(staging, staging, to, log), sourceExisted };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Extracts a filestore archive (.zip, .tar, .tar.gz) into `toDir`, replacing it. A top folder
 * `filestore/` or one named after the database is stripped, so an ERP backup .zip (dump.sql,
 * manifest.json, filestore/) gives its filestore. The archive is refused, and the old filestore
 * kept, when it would pass `limits` (checked entry by entry before anything is written, so a bomb
 * never fills the disk), or holds a path leading out of the folder, a link or a special file (see
 * unpackFilestore).
 */
export async function extractFilestore(
  archiveFile: string,
  toDir: string,
  log: Writable,
  limits: FilestoreLimits = DEFAULT_FILESTORE_LIMITS,
  { signal }: FilestoreOptions = {},
): Promise<{ files: number }> {
  const to = resolve(toDir);
  throwIfAborted(signal, `extracting filestore archive ${archiveFile}`);
  const staging = await freshStaging(to);
  try {
    logLine(log, `extracting filestore archive ${archiveFile} into ${to}`);
    await unpackFilestore(archiveFile, staging, limits, signal).catch((error: unknown) => {
      throwIfAborted(signal, `extracting filestore archive ${archiveFile}`);
      const message = `cannot extract filestore archive ${archiveFile}: ${error instanceof Error ? error.message : String(error)}`;
      logLine(log, message);
      throw new Error(message, { cause: error });
    });
    const root = await filestoreRoot(staging);
    if (root !== staging) logLine(log, `filestore archive: using its folder ${relative(staging, root)}/`);
    return { files: await replaceWith(root, staging, to, log) };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

async function freshStaging(to: string): Promise<string> {
  const staging = `${to}.partial`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(dirname(to), { recursive: true });
  await mkdir(staging);
  return staging;
}

/** Checks and counts `root`, then swaps it in for `to` and removes what is left of `staging`. */
async function replaceWith(root: string, staging: string, to: string, log: Writable): Promise<number> {
  const files = await countRegularFiles(root, root);
  await rm(to, { recursive: true, force: true });
  await rename(root, to);
  await rm(staging, { recursive: true, force: true });
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
