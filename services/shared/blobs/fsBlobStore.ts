import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, createReadStream, createWriteStream, fstatSync, openSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { at, LinkRefusedError, lstatBeneath, openFileBeneath, openFolderBeneath, withFolderBeneath } from '../fs/beneath.ts';
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

/**
 * Below `root` some folders are an instance's (its data dir, in the old layout its logs): every
 * key is resolved one name at a time without following a link (beneath.ts), so a link an ERP's
 * account planted at `logs/db.log` is refused instead of serving its target (the master key).
 */
const READ = constants.O_RDONLY | constants.O_NONBLOCK;

export function createFsBlobStore(rootDir: string, options: FsBlobStoreOptions = {}): FsBlobStore {
  const root = resolve(rootDir);
  const fileMode = options.fileMode ?? 0o600;
  const dirMode = options.dirMode ?? 0o700;
  const pathOf = (key: string) => join(root, assertBlobKey(key));

  async function openWriter(key: string): Promise<BlobWriter> {
    const path = pathOf(key);
    await mkdir(root, { recursive: true });
    // The folder stays open until commit or abort: the rename happens in it, whatever its path leads to meanwhile.
    const folder = openFolderBeneath(root, dirname(assertBlobKey(key)), { mode: dirMode });
    // Beside the target, so the rename stays on one filesystem; a hidden name is never a key.
    const name = basename(path);
    const temp = `.${name}.${randomBytes(6).toString('hex')}.tmp`;
    let fd: number;
    try {
      fd = openSync(at(folder, temp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, fileMode);
    } catch (error) {
      closeSync(folder);
      throw error;
    }
    const stream = createWriteStream('', { fd, flush: true });
    let state: 'open' | 'committed' | 'aborted' = 'open';
    let folderOpen = true;
    const release = () => {
      if (folderOpen) closeSync(folder);
      folderOpen = false;
    };
    const removeTemp = async () => {
      if (!folderOpen) return;
      rmSync(at(folder, temp), { force: true });
      release();
    };
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
          renameSync(at(folder, temp), at(folder, name));
          release();
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
      if (range) assertByteRange(range);
      let fd: number;
      try {
        fd = openFileBeneath(root, assertBlobKey(key), READ);
      } catch (error) {
        // A link (or a file where a folder of keys should be) is no blob either: never served.
        throw missing(error) || error instanceof LinkRefusedError ? new BlobNotFoundError(key) : error;
      }
      try {
        if (!fstatSync(fd).isFile()) throw new BlobNotFoundError(key);
      } catch (error) {
        closeSync(fd);
        throw error;
      }
      return createReadStream('', { fd, start: range?.start ?? 0, ...(range?.end === undefined ? {} : { end: range.end }) });
    },

    async stat(key): Promise<BlobStat | null> {
      // A link at the key (or on its way) is no blob: refused by lstatBeneath, or reported as a link.
      let info: ReturnType<typeof lstatBeneath>;
      try {
        info = lstatBeneath(root, assertBlobKey(key));
      } catch (error) {
        if (missing(error) || error instanceof LinkRefusedError) return null;
        throw error;
      }
      return info?.isFile() ? { size: info.size, modifiedAt: info.mtime, generation: `${info.dev}:${info.ino}` } : null;
    },

    async delete(key) {
      const path = assertBlobKey(key);
      try {
        // In the folder opened without following links: a link on the way is refused, not walked through.
        withFolderBeneath(root, dirname(path), (fd) => unlinkSync(at(fd, basename(path))));
      } catch (error) {
        // A folder of other keys is no blob: there is nothing at this key to delete.
        if (missing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return;
        throw error;
      }
    },

    async list(prefix) {
      assertBlobKey(prefix);
      let folder: number;
      try {
        folder = openFolderBeneath(root, prefix);
      } catch (error) {
        if (missing(error)) return [];
        throw error;
      }
      try {
        // A hidden name is a writer's temporary file, never a key; a link is no blob.
        const entries = readdirSync(at(folder), { withFileTypes: true });
        return entries.filter((entry) => entry.isFile() && !entry.name.startsWith('.')).map((entry) => entry.name).sort();
      } finally {
        closeSync(folder);
      }
    },

    async deletePrefix(prefix) {
      // Coreutils' rm: a tree that held an instance's folders may hold its links, which Node's by-path walk could be raced into following.
      const removed = spawnSync('rm', ['-rf', '--one-file-system', '--', pathOf(prefix)], { encoding: 'utf8' });
      if (removed.status !== 0) throw new Error(`cannot delete ${prefix}: ${removed.stderr.trim()}`);
    },
  };
}
