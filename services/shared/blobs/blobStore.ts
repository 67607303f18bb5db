import type { Readable, Writable } from 'node:stream';

/**
 * The blob storage port: everything a job writes that web or the API serves (instance logs,
 * uploaded dumps, migration artifacts). Every adapter passes the contract suite in
 * `test/shared/blobStore.contract.ts`.
 *
 * Keys are relative slash paths (`instances/acme-dev/logs/erp.log`) built by `blobKeys.ts` from
 * ids the domain validated, never from user input; `assertBlobKey` refuses anything else. Keys
 * form a hierarchy: `deletePrefix('instances/acme-dev')` takes every key under that folder, and a
 * key is never also the folder of other keys.
 */
export interface BlobStore {
  /** Stores what `source` yields at `key`, replacing what was there. Atomic: readers see the old blob or the whole new one, and a source that fails leaves the old one (or none). */
  put(key: string, source: Readable | AsyncIterable<Uint8Array>): Promise<void>;
  /** A writer for streaming into `key` (an upload judged as it arrives): nothing shows at the key until `commit`. */
  openWriter(key: string): Promise<BlobWriter>;
  /** The blob's bytes, or those of `range`; rejects with `BlobNotFoundError` when there is none. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size and time of the blob, or null when there is none. */
  stat(key: string): Promise<BlobStat | null>;
  /** Deletes the blob; a missing one is fine. */
  delete(key: string): Promise<void>;
  /** The names of the blobs directly in the folder `prefix` (not in folders below it), sorted; none when there is no such folder. */
  list(prefix: string): Promise<string[]>;
  /** Deletes every key under the folder `prefix` (a key itself, `instances/acme-dev`; never `instances/acme-dev-2`). */
  deletePrefix(prefix: string): Promise<void>;
}

/** A blob being written. */
export interface BlobWriter {
  /** Where the bytes go. Destroyed (or failed in a pipeline) before it finished, it leaves nothing. */
  readonly stream: Writable;
  /** Once `stream` has finished: makes what it took the blob at the key, at once and whole. */
  commit(): Promise<void>;
  /** Drops what was written; the key keeps what it had. Safe to call twice, and a no-op after `commit`. */
  abort(): Promise<void>;
}

/** Bytes `start` to `end`, both inclusive (as HTTP ranges); no `end`: to the end of the blob. A start past the end reads nothing. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface BlobStat {
  size: number;
  modifiedAt: Date;
  /**
   * Changes when the blob is replaced (a `put`, or a file written anew) and stays while it is
   * appended to, so a follower can tell a new log from a grown one. Absent where a store cannot tell.
   */
  generation?: string;
}

/** `get` of a key that holds no blob. */
export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';
  constructor(readonly key: string) {
    super(`no blob at ${key}`);
  }
}

/** A key (or prefix) that is no relative slash path of allowed names. */
export class InvalidBlobKeyError extends Error {
  override readonly name = 'InvalidBlobKeyError';
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`not a valid blob key (${reason}): ${JSON.stringify(key)}`);
  }
}

const MAX_KEY_LENGTH = 512;
/** A name starts with a letter or digit: `.`, `..` and hidden names (adapters' temporary files) are never keys. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Returns `key` when it is a valid key, else throws `InvalidBlobKeyError` saying why. */
export function assertBlobKey(key: string): string {
  const refuse = (reason: string): never => {
    throw new InvalidBlobKeyError(key, reason);
  };
  if (typeof key !== 'string' || key.length === 0) return refuse('empty');
  if (key.length > MAX_KEY_LENGTH) refuse(`longer than ${MAX_KEY_LENGTH} characters`);
  if (key.includes('\0')) refuse('contains NUL');
  if (key.includes('\\')) refuse('contains a backslash');
  if (key.startsWith('/')) refuse('absolute');
  for (const segment of key.split('/')) {
    if (segment === '..' || segment === '.') refuse(`contains ${segment}`);
    if (segment === '') refuse('has an empty name');
    if (!SEGMENT.test(segment)) refuse(`name ${JSON.stringify(segment)} is not letters, digits, '.', '_' and '-' starting with a letter or digit`);
  }
  return key;
}

/** Checks a range before any I/O: whole non-negative byte offsets, `end` not before `start`. */
export function assertByteRange(range: ByteRange): ByteRange {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 0) throw new RangeError(`a byte range starts at a whole number of bytes from 0, not ${start}`);
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start)) throw new RangeError(`a byte range ends at a whole number of bytes from its start (${start}), not ${end}`);
  return range;
}
