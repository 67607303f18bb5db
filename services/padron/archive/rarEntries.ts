import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PadronTextEntry } from './padronTextEntry.ts';
import { type ExpansionLimits, expansionRefusal } from './expansionLimits.ts';
import { isTextEntryName } from './fileKind.ts';
import { PadronArchiveError } from './padronArchiveError.ts';
import { RAR_TOOL_PACKAGES, findRarTool } from './rarTool.ts';

/**
 * The text entries of a RAR (AGIP ships RAR4), each streamed from the extractor: nothing is
 * extracted to disk or held in memory. Every entry counts against the expansion limits, read or
 * not, because bsdtar inflates all of them on its way through the archive. A failing extractor
 * fails the entry's stream with its message, so a truncated archive is not mistaken for a short
 * padrón.
 */
export async function* rarTextEntries(path: string, limits: ExpansionLimits): AsyncGenerator<PadronTextEntry> {
  const tool = await findRarTool();
  if (tool === null) {
    throw new PadronArchiveError(`'${path}' is a RAR archive and no RAR extractor is installed: install Debian's ${RAR_TOOL_PACKAGES} (apt-get install libarchive-tools)`);
  }
  const archive = { bytes: 0, compressedBytes: (await stat(path)).size };
  const seen: string[] = [];
  let texts = 0;
  for await (const entry of tool.entries(resolve(path), path)) {
    seen.push(entry.name);
    archive.bytes += entry.size;
    const refusal = expansionRefusal(entry.name, { bytes: entry.size }, archive, limits);
    if (refusal !== undefined) throw new PadronArchiveError(`'${path}' refused: ${refusal}`);
    if (!entry.isFile || !isTextEntryName(entry.name)) continue;
    texts++;
    yield { name: entry.name, stream: entry.open() };
  }
  if (texts === 0) throw new PadronArchiveError(`'${path}' holds no .txt or .csv file (entries: ${seen.join(', ') || 'none'})`);
}
