import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { assertBlobKey, assertByteRange, BlobNotFoundError, type BlobStat, type BlobStore, type BlobWriter, type ByteRange } from './blobStore.ts';

/** The filesystem adapter: each key is the file at that relative path under `root` (FORJA_DATA_DIR). */
export interface FsBlobStore extends BlobStore {
  readonly root: string;
  /**
   * The file behind `key`, for a writer on this machine that can only write by path (the ERP
   * writes its own log file). Readers, and web above all, go through the port.
   */
  pathOf(key: string): string;
}

export interface FsBlobStoreOptions {
  /** Blobs hold customer dumps: Forja's alone unless told otherwise. */
  fileMode?: number;
  /** Folders the store creates under `root` (never `root` itself, which others share). */
  dirMode?: number;
}

/** What a missing file looks like: the file, or a folder on its path, is not there or not a folder. */
const missing = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

export function createFsBlobStore(rootDir: string, options: FsBlobStoreOptions = {}): FsBlobStore {
  const root = resolve(rootDir);
  const fileMode = options.fileMode ?? 0o600;
  const dirMode = options.dirMode ?? 0o700;
  const pathOf = (key: string) => join(root, assertBlobKey(key));

  async function openWriter(key: string): Promise<BlobWriter> {
    const path = pathOf(key);
    await mkdir(root, { recursive: true });
    await mkdir(dirname(path), { recursive: true, mode: dirMode });
    // Beside the target, so the rename stays on one filesystem; a hidden name is never a key.
    const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
    const stream = createWriteStream(temp, { flags: 'wx', mode: fileMode, flush: true });
    let state: 'open' | 'committed' | 'aborted' = 'open';
    const removeTemp = () => rm(temp, { force: true });
    // A stream destroyed before it finished (a failed pipeline) leaves no temporary file behind.
    stream.on('close', () => {
      if (state === 'open' && !stream.writableFinished) void removeTemp().catch(() => undefined);
    });
    return {
      stream,
      async commit() {
        if (state !== 'open') throw new Error(`the writer of ${key} was already ${state}`);
        if (!stream.writableEnded) throw new Error(`commit of ${key} before its stream ended`);
        await finished(stream);
        state = 'committed';
        try {
          await rename(temp, path);
        } catch (error) {
          await removeTemp();
          throw error;
        }
      },
      async abort() {
        if (state !== 'open') return;
        state = 'aborted';
        stream.destroy();
        await finished(stream).catch(() => undefined);
        await removeTemp();
      },
    };
  }

  return {
    root,
    pathOf,
    openWriter,

    async put(key, source) {
      const writer = await openWriter(key);
      try {
        await pipeline(source, writer.stream);
        await writer.commit();
      } catch (error) {
        await writer.abort();
        throw error;
      }
    },

    async get(key: string, range?: ByteRange): Promise<Readable> {
      const path = pathOf(key);
      if (range) assertByteRange(range);
      const handle = await open(path, 'r').catch((error: unknown) => {
        throw missing(error) ? new BlobNotFoundError(key) : error;
      });
      try {
        if (!(await handle.stat()).isFile()) throw new BlobNotFoundError(key);
      } catch (error) {
        await handle.close();
        throw error;
      }
      return handle.createReadStream({ start: range?.start ?? 0, ...(range?.end === undefined ? {} : { end: range.end }) });
    },

    async stat(key): Promise<BlobStat | null> {
      try {
        const info = await stat(pathOf(key));
        return info.isFile() ? { size: info.size, modifiedAt: info.mtime, generation: `${info.dev}:${info.ino}` } : null;
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },

    async delete(key) {
      const path = pathOf(key);
      try {
        await unlink(path);
      } catch (error) {
        // A folder of other keys is no blob: there is nothing at this key to delete.
        if (missing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return;
        throw error;
      }
    },

    async list(prefix) {
      try {
        const entries = await readdir(pathOf(prefix), { withFileTypes: true });
        // A hidden name is a writer's temporary file, never a key.
        return entries.filter((entry) => entry.isFile() && !entry.name.startsWith('.')).map((entry) => entry.name).sort();
      } catch (error) {
        if (missing(error)) return [];
        throw error;
      }
    },

    async deletePrefix(prefix) {
      await rm(pathOf(prefix), { recursive: true, force: true });
    },
  };
}
