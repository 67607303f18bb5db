import { PassThrough, type Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import yauzl from 'yauzl';
import type { BlobStore } from '#shared/blobs/blobStore.ts';

/** What an ERP backup `.zip` holds of what a migration restores. */
export interface ErpBackupContents {
  /** It has a `filestore/` folder. */
  filestore: boolean;
}

/** The central directory is read in blocks this large: a filestore of 100 000 files is a few dozen reads, never more memory than one block. */
const BLOCK = 1024 * 1024;

/**
 * Reads a blob by ranges for yauzl, which asks for a few dozen bytes per entry: each ask is served
 * from the block in hand, or from the next block read from the store.
 */
class BlobRangeReader extends yauzl.RandomAccessReader {
  private block: { start: number; bytes: Buffer } | undefined;

  constructor(
    private readonly blobs: BlobStore,
    private readonly key: string,
    private readonly size: number,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const out = new PassThrough();
    this.bytes(start, end).then(
      (bytes) => out.end(bytes),
      (error: unknown) => out.destroy(error as Error),
    );
    return out;
  }

  /** yauzl reads the central directory through this, two small reads per entry: served from the block, without a stream each. */
  override read(target: Buffer, offset: number, length: number, position: number, callback: (error: Error | null, bytesRead?: number) => void): void {
    this.bytes(position, position + length).then(
      (bytes) => callback(null, bytes.copy(target, offset)),
      (error: unknown) => callback(error as Error),
    );
  }

  private async bytes(start: number, end: number): Promise<Buffer> {
    const held = this.block;
    if (held && start >= held.start && end <= held.start + held.bytes.length) return held.bytes.subarray(start - held.start, end - held.start);
    if (end - start > BLOCK) return buffer(await this.blobs.get(this.key, { start, end: end - 1 }));
    const last = Math.min(this.size, start + BLOCK) - 1;
    this.block = { start, bytes: await buffer(await this.blobs.get(this.key, { start, end: last })) };
    return this.block.bytes.subarray(0, end - start);
  }
}

/**
 * Whether a stored `.zip` is an ERP backup: its central directory (read from the end of the blob,
 * not the whole file) names a `dump.sql` at the top. Says what else it holds, or why it is refused.
 */
export async function erpBackupContents(blobs: BlobStore, key: string, size: number): Promise<ErpBackupContents | { refused: string }> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromRandomAccessReaderPromise(new BlobRangeReader(blobs, key, size), size, { autoClose: false, lazyEntries: true });
  } catch (error) {
    return { refused: `not a readable .zip archive (${(error as Error).message})` };
  }
  let dump = false;
  let filestore = false;
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName === 'dump.sql') dump = true;
      if (entry.fileName.startsWith('filestore/')) filestore = true;
      // Odoo writes dump.sql first and the filestore after it: most backups stop here at once.
      if (dump && filestore) break;
    }
  } catch (error) {
    return { refused: `not a readable .zip archive (${(error as Error).message})` };
  } finally {
    zip.close();
  }
  if (!dump) return { refused: 'a .zip that holds no dump.sql: not an ERP backup (it holds dump.sql, filestore/ and manifest.json)' };
  return { filestore };
}
