import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * A download in progress, written aside as `<toFile>.part` and renamed when complete. Beside it
 * `<toFile>.part.json` says which URL the bytes came from (a hash: the URL may hold credentials)
 * and the server's validator (strong ETag or Last-Modified), sent as If-Range on a resume so that
 * a changed file comes back whole (200) instead of its tail glued to the old head. With the
 * complete file it becomes `<toFile>.source.json`: an attempt that finished the download but died
 * before its completion was recorded leaves a file the next attempt keeps (`keptFile`).
 */
export interface PartFile {
  path: string;
  /** Bytes already in the part file, all in `hash`. */
  offset: number;
  hash: Hash;
  ifRange: string | undefined;
}

interface PartMeta {
  url: string;
  validator?: string;
}

export const partPath = (toFile: string): string => `${toFile}.part`;
const metaPath = (toFile: string): string => `${toFile}.part.json`;
const sourcePath = (toFile: string): string => `${toFile}.source.json`;
export const urlKey = (url: string): string => createHash('sha256').update(url).digest('hex');

/**
 * The part file an earlier attempt left for the same URL, re-hashed from its first byte (a hash's
 * state cannot be saved); an empty one when there is none or it came from another URL.
 */
export async function openPart(toFile: string, key: string, signal: AbortSignal): Promise<PartFile> {
  await mkdir(dirname(toFile), { recursive: true });
  const meta = await readMeta(metaPath(toFile));
  const hash = createHash('sha256');
  if (meta && meta.url !== key) {
    await discardPart(toFile);
    return { path: partPath(toFile), offset: 0, hash, ifRange: undefined };
  }
  let offset = 0;
  try {
    for await (const chunk of createReadStream(partPath(toFile), { signal }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      offset += chunk.length;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return { path: partPath(toFile), offset, hash, ifRange: offset > 0 ? meta?.validator : undefined };
}

/** Forgets what the part file holds: the next bytes written start it over (the caller opens it with `w`). */
export function restartPart(part: PartFile): void {
  part.offset = 0;
  part.hash = createHash('sha256');
  part.ifRange = undefined;
}

/** Records the URL and the validator of the response whose body the part file starts with. */
export async function rememberSource(toFile: string, key: string, headers: IncomingHttpHeaders): Promise<void> {
  const etag = headers.etag;
  const validator = etag && !etag.startsWith('W/') ? etag : headers['last-modified'];
  const meta: PartMeta = validator ? { url: key, validator } : { url: key };
  await writeFile(metaPath(toFile), JSON.stringify(meta));
}

/** Makes the complete part file durable and puts it in place, noting which URL it came from. */
export async function finishPart(toFile: string): Promise<void> {
  const handle = await open(partPath(toFile), 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partPath(toFile), toFile);
  await rename(metaPath(toFile), sourcePath(toFile)).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  });
}

/** The size and sha256 of the complete file an earlier download of the same URL put in place, or undefined. */
export async function keptFile(toFile: string, key: string, signal: AbortSignal): Promise<{ bytes: number; sha256: string } | undefined> {
  if ((await readMeta(sourcePath(toFile)))?.url !== key) return undefined;
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(toFile, { signal }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { bytes, sha256: hash.digest('hex') };
}

export async function discardPart(toFile: string): Promise<void> {
  await rm(partPath(toFile), { force: true });
  await rm(metaPath(toFile), { force: true });
}

async function readMeta(path: string): Promise<PartMeta | undefined> {
  try {
    const meta = JSON.parse(await readFile(path, 'utf8')) as Partial<PartMeta>;
    if (typeof meta.url !== 'string') return undefined;
    return typeof meta.validator === 'string' ? { url: meta.url, validator: meta.validator } : { url: meta.url };
  } catch {
    return undefined;
  }
}
