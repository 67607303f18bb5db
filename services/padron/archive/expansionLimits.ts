import { formatBytes } from '#shared/formatBytes.ts';

/**
 * How far a padrón archive may expand as it is read. A padrón is text of a few hundred MB that
 * ZIP and RAR shrink 5 to 10 times; an entry of NULs shrinks a thousand times and more, and once
 * inflated for 47 s before the parser found no line in it. The sizes judged are ones the readers
 * hold each entry to (yauzl fails an entry that inflates past its declared size, a tar stream
 * holds exactly the size in its header, unar's output is cut at the listed size), so a refusal
 * comes before anything is inflated.
 */
export interface ExpansionLimits {
  /** Largest entry, decompressed. */
  maxEntryBytes: number;
  /** Largest ratio of decompressed to compressed bytes, for an entry and for the whole archive. */
  maxRatio: number;
  /** Below this an entry or archive is not judged by its ratio: a small file of repeated lines compresses beyond any sensible ratio. */
  ratioFloorBytes: number;
}

export const PADRON_EXPANSION_LIMITS: ExpansionLimits = {
  // ARBA ships ZIPs without ZIP64: no entry of theirs can reach 4 GiB.
  maxEntryBytes: 4 * 2 ** 30,
  // Ten times what padrones reach, a tenth of what deflate does to NULs (1032 times).
  maxRatio: 100,
  ratioFloorBytes: 16 * 2 ** 20,
};

/** Decompressed bytes and the compressed bytes they came from. */
export interface Expansion {
  bytes: number;
  /** Unknown for one entry of a RAR (bsdtar and unar do not tell); the archive's size is known. */
  compressedBytes?: number;
}

/**
 * Why an entry may not be read, or undefined: over the size limit, or expanding beyond the ratio,
 * by itself or together with the entries before it (entries that share compressed data each look
 * modest). `archive` counts the entries so far, this one included, against the archive's size.
 */
export function expansionRefusal(name: string, entry: Expansion, archive: Required<Expansion>, limits: ExpansionLimits): string | undefined {
  if (entry.bytes > limits.maxEntryBytes) {
    return `'${name}' would expand to ${formatBytes(entry.bytes)}, more than the ${formatBytes(limits.maxEntryBytes)} a padrón file may have`;
  }
  const tooDense = (bytes: number, compressedBytes: number) => bytes > limits.ratioFloorBytes && bytes > compressedBytes * limits.maxRatio;
  const why = `a padrón compresses about 10 times, so over ${limits.maxRatio} times is no padrón (all NULs, or an archive bomb)`;
  if (entry.compressedBytes !== undefined && tooDense(entry.bytes, entry.compressedBytes)) {
    return `'${name}' would expand to ${formatBytes(entry.bytes)} from ${formatBytes(entry.compressedBytes)} (${times(entry.bytes, entry.compressedBytes)}); ${why}`;
  }
  if (tooDense(archive.bytes, archive.compressedBytes)) {
    return `its entries up to '${name}' would expand to ${formatBytes(archive.bytes)} from an archive of ${formatBytes(archive.compressedBytes)} (${times(archive.bytes, archive.compressedBytes)}); ${why}`;
  }
  return undefined;
}

function times(bytes: number, compressedBytes: number): string {
  const ratio = bytes / Math.max(1, compressedBytes);
  return `${ratio >= 100 ? Math.round(ratio) : Number(ratio.toFixed(1))} times`;
}
