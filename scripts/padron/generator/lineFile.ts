import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

/** How a file's lines become bytes. */
export interface LineEncoding {
  encoding: 'latin1' | 'utf8';
  eol: '\n' | '\r\n';
  /** Write a UTF-8 BOM first (Salta's file has one; FORMATS.md reports it in front of others). */
  bom?: boolean;
}

const CHUNK_CHARS = 1 << 20;

/**
 * Lines joined and encoded into ~1 MiB buffers, produced lazily: memory stays flat whatever the
 * row count, and the consumer (a file or a ZIP entry) sets the pace.
 */
export function* encodeLines(options: LineEncoding, lines: Iterable<string>): Generator<Buffer> {
  if (options.bom === true) yield Buffer.from([0xef, 0xbb, 0xbf]);
  let pending = '';
  for (const line of lines) {
    pending += line + options.eol;
    if (pending.length >= CHUNK_CHARS) {
      yield Buffer.from(pending, options.encoding);
      pending = '';
    }
  }
  if (pending !== '') yield Buffer.from(pending, options.encoding);
}

/** Writes the chunks to `path`, waiting for `drain` when the stream asks; returns the bytes written. */
export async function writeChunks(path: string, chunks: Iterable<Buffer>): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  for (const chunk of chunks) {
    bytes += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
  return bytes;
}

/** A sync iterable as the async one a ZIP entry takes. */
export async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
