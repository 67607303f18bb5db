import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import type { PadronTextEntry } from './padronTextEntry.ts';
import { fileKindOf } from './fileKind.ts';
import { type ExpansionLimits, PADRON_EXPANSION_LIMITS } from './expansionLimits.ts';
import { PadronArchiveError } from './padronArchiveError.ts';
import { zipTextEntries } from './zipEntries.ts';
import { rarTextEntries } from './rarEntries.ts';

export type { PadronTextEntry } from './padronTextEntry.ts';

/** Chunk size for reading: large chunks mean fewer, larger line batches in the parser. */
export const READ_CHUNK_BYTES = 1 << 20;

/**
 * The padrón text file(s) in `path`, as streams of bytes: the file itself when it is text, the
 * `.txt`/`.csv` entries of a ZIP or RAR otherwise, decided by magic bytes. Nothing is extracted
 * whole to memory or disk, and an archive is refused before it expands beyond `limits`. Read each
 * entry's stream to its end (or destroy it) before asking for the next; breaking out of the loop
 * closes the archive.
 */
export async function* openPadronEntries(path: string, limits: ExpansionLimits = PADRON_EXPANSION_LIMITS): AsyncGenerator<PadronTextEntry> {
  const kind = await fileKindOf(path);
  if (kind === 'text') {
    yield { name: basename(path), stream: createReadStream(path, { highWaterMark: READ_CHUNK_BYTES }) };
  } else if (kind === 'zip') {
    yield* zipTextEntries(path, limits);
  } else if (kind === 'rar') {
    yield* rarTextEntries(path, limits);
  } else {
    throw new PadronArchiveError(`'${path}' is ${kind.unsupported}, not a padrón text file or a ZIP or RAR archive`);
  }
}
