import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { PassThrough, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract } from 'tar-stream';
import yauzl from 'yauzl';

/** One entry of a filestore archive. */
export interface FilestoreEntry {
  name: string;
  kind: 'file' | 'folder' | 'symbolic link' | 'hard link' | 'special file';
  /** Exactly what `open()` gives: a tar stream holds the size its header says, and yauzl fails an entry that inflates past its declared size. */
  size: number;
  /** Its bytes; read them to the end before asking for the next entry. */
  open(): Promise<AsyncIterable<Uint8Array>>;
}

export type FilestoreArchiveFormat = 'zip' | 'tar' | 'tar.gz';

/** The format by the first bytes: the ones web accepts for an upload, and no other. */
export function filestoreArchiveFormat(head: Buffer): FilestoreArchiveFormat | undefined {
  if (head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05)) return 'zip';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  if (head.subarray(257, 262).toString('latin1') === 'ustar') return 'tar';
  return undefined;
}

/**
 * The entries of a filestore archive, read by Forja: ZIP through yauzl, tar and gzip-compressed
 * tar through tar-stream. Not through bsdtar, which reads whatever libarchive knows, mtree
 * included, and an mtree entry takes its content from a file on the host: a gzipped line
 * `./ab/ab12 type=file contents=/etc/shadow` copied the executor's files into the filestore, where
 * the ERP serves them to anyone who can open an attachment.
 */
export async function* filestoreEntries(path: string): AsyncGenerator<FilestoreEntry> {
  const format = filestoreArchiveFormat(await headOf(path));
  if (format === undefined) throw new Error('it is not a .zip, .tar or .tar.gz archive');
  if (format === 'zip') yield* zipEntries(path);
  else yield* tarEntries(path, format === 'tar.gz');
}

async function* zipEntries(path: string): AsyncGenerator<FilestoreEntry> {
  // yauzl refuses absolute and `..` names itself; safeEntryPath checks again whatever the format.
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true }).catch((error: unknown) => {
    throw new Error(`it is not a readable ZIP archive: ${(error as Error).message}`, { cause: error });
  });
  try {
    for await (const entry of zip.eachEntry()) {
      const openEntry = async () => {
        // yauzl starts inflating at once and may fail (an entry past its declared size) before the
        // writer listens: a stream that keeps the failure for it, rather than an uncaught error.
        const held = new PassThrough({ highWaterMark: 1 << 20 });
        pipeline(await zip.openReadStreamPromise(entry), held, () => undefined);
        return held;
      };
      yield { name: entry.fileName, kind: zipEntryKind(entry), size: entry.uncompressedSize, open: openEntry };
    }
  } finally {
    zip.close();
  }
}

/** A ZIP tells folders by a trailing slash and links by the Unix mode some tools store; DOS attributes leave the mode 0. */
function zipEntryKind(entry: yauzl.Entry): FilestoreEntry['kind'] {
  const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
  if (entry.fileName.endsWith('/') || mode === 0o040000) return 'folder';
  if (mode === 0o120000) return 'symbolic link';
  return mode === 0 || mode === 0o100000 ? 'file' : 'special file';
}

async function* tarEntries(path: string, gzipped: boolean): AsyncGenerator<FilestoreEntry> {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  const tar = tarExtract();
  file.on('error', (error) => tar.destroy(error));
  if (gzipped) {
    const gunzip = createGunzip();
    gunzip.on('error', (error) => tar.destroy(error));
    file.pipe(gunzip).pipe(tar as unknown as NodeJS.WritableStream);
  } else {
    file.pipe(tar as unknown as NodeJS.WritableStream);
  }
  try {
    for await (const entry of tar) {
      const { name, type, size } = entry.header;
      let opened = false;
      yield {
        name,
        kind: TAR_KINDS[type] ?? 'special file',
        size,
        open: () => {
          opened = true;
          return Promise.resolve(entry as AsyncIterable<Uint8Array>);
        },
      };
      // The next entry follows this one's bytes: read past them when nobody did.
      if (!opened) for await (const chunk of entry) void chunk;
    }
  } catch (error) {
    const reason = (error as Error).message.replace(/ Maybe the tar is corrupted or it needs to be gunzipped\?$/, '');
    throw new Error(`it is not a readable ${gzipped ? 'gzip-compressed ' : ''}tar archive: ${reason}`, { cause: error });
  } finally {
    file.destroy();
    tar.destroy();
  }
}

const TAR_KINDS: Partial<Record<string, FilestoreEntry['kind']>> = { file: 'file', 'contiguous-file': 'file', directory: 'folder', symlink: 'symbolic link', link: 'hard link' };

async function headOf(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
