import { closeSync, constants, createWriteStream, fstatSync, writeSync, type WriteStream } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { openFileBeneath } from '#shared/fs/beneath.ts';

/**
 * Instance and migration logs (`instances/<slug>/logs/erp.log`, `migrations/<slug>/runs/<n>/run.log`)
 * are written and read by root, and web serves them to viewers: a link planted in their place by
 * an ERP's account would hand its target (the master key in local-secrets.json) to anyone who opens
 * the log, or have root append to it. So every log is opened below FORJA_DATA_DIR (`root`, Forja's
 * own) one name at a time without following a link (beneath.ts): a link anywhere is refused.
 */
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK;
/** Folders made on the way are Forja's alone; tenantFolders.ts gives an instance's folder its modes. */
const FOLDERS = { mode: 0o700 };

/** `file`'s path below `root`; a file outside it is refused (it would not be resolved from Forja's folder). */
export function below(root: string, file: string): string {
  const path = relative(resolve(root), resolve(file));
  if (path === '' || path.startsWith('..') || isAbsolute(path)) throw new Error(`${file} is not below ${root}`);
  return path;
}

function regularFile(fd: number, file: string): number {
  if (fstatSync(fd).isFile()) return fd;
  closeSync(fd);
  throw new Error(`${file} is not a regular file: Forja's logs are plain files`);
}

/** A descriptor appending to the log (created 0600 when missing), never through a link; the caller closes it. */
export function openLogAppend(root: string, file: string): number {
  return regularFile(openFileBeneath(root, below(root, file), APPEND, 0o600, FOLDERS), file);
}

/** A descriptor reading the log, never through a link; null when there is none. The caller closes it. */
export function openLogRead(root: string, file: string): number | null {
  try {
    return regularFile(openFileBeneath(root, below(root, file), constants.O_RDONLY | constants.O_NONBLOCK), file);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
}

/** A stream appending to the log, for tools' raw output. */
export function logStream(root: string, file: string): WriteStream {
  return createWriteStream('', { fd: openLogAppend(root, file) });
}

/** Appends `text` to the log. */
export function appendLog(root: string, file: string, text: string): void {
  const fd = openLogAppend(root, file);
  try {
    const bytes = Buffer.from(text);
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
  } finally {
    closeSync(fd);
  }
}
