import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import yauzl from 'yauzl';
import type { PadronTextEntry } from './padronTextEntry.ts';
import { type ExpansionLimits, expansionRefusal } from './expansionLimits.ts';
import { isTextEntryName } from './fileKind.ts';
import { PadronArchiveError } from './padronArchiveError.ts';

/**
 * The text entries of a ZIP, one at a time, each inflated as it is read (yauzl reads the central
 * directory, then one entry's bytes on demand): memory does not grow with the archive. The next
 * entry is opened only once the previous stream has ended or been destroyed. Sizes come from the
 * central directory, and yauzl fails an entry that inflates past its size, so the expansion limits
 * judge an entry before a byte of it is inflated.
 */
export async function* zipTextEntries(path: string, limits: ExpansionLimits): AsyncGenerator<PadronTextEntry> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false }).catch((error: unknown) => {
    throw new PadronArchiveError(`'${path}' is not a readable ZIP archive: ${error instanceof Error ? error.message : String(error)}`);
  });
  try {
    const seen: string[] = [];
    const archive = { bytes: 0, compressedBytes: zip.fileSize };
    let texts = 0;
    for await (const entry of zip.eachEntry()) {
      seen.push(entry.fileName);
      if (entry.fileName.endsWith('/') || !isTextEntryName(entry.fileName)) continue;
      archive.bytes += entry.uncompressedSize;
      const refusal = expansionRefusal(entry.fileName, { bytes: entry.uncompressedSize, compressedBytes: entry.compressedSize }, archive, limits);
      if (refusal !== undefined) throw new PadronArchiveError(`'${path}' refused: ${refusal}`);
      texts++;
      const stream = await zip.openReadStreamPromise(entry);
      yield { name: entry.fileName, stream };
      await endOf(stream);
    }
    if (texts === 0) throw new PadronArchiveError(`'${path}' holds no .txt or .csv file (entries: ${seen.join(', ') || 'none'})`);
  } finally {
    zip.close();
  }
}

/** Resolves when the consumer is done with a stream, whether it read it all or gave up. */
async function endOf(stream: Readable): Promise<void> {
  if (stream.destroyed || stream.readableEnded) return;
  await finished(stream).catch(() => undefined);
}
