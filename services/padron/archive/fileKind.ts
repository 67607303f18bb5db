import { open } from 'node:fs/promises';

/** What a padrón file is, by its first bytes. */
export type FileKind = 'text' | 'zip' | 'rar' | { unsupported: string };

const SAMPLE_BYTES = 4096;

const SIGNATURES: ReadonlyArray<{ bytes: readonly number[]; kind: FileKind }> = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], kind: 'zip' },
  { bytes: [0x50, 0x4b, 0x05, 0x06], kind: 'zip' }, // empty archive: refused later for having no entry
  { bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], kind: 'rar' }, // RAR4 (then 00) and RAR5 (then 01 00)
  { bytes: [0x1f, 0x8b], kind: { unsupported: 'a gzip file' } },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], kind: { unsupported: 'a 7-Zip archive' } },
  { bytes: [0x42, 0x5a, 0x68], kind: { unsupported: 'a bzip2 file' } },
  { bytes: [0x25, 0x50, 0x44, 0x46], kind: { unsupported: 'a PDF document' } },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], kind: { unsupported: 'an old Excel/Office document' } },
  { bytes: [0xff, 0xfe], kind: { unsupported: 'UTF-16 text' } },
  { bytes: [0xfe, 0xff], kind: { unsupported: 'UTF-16 text' } },
];

/**
 * Decides by magic bytes, never by extension: agencies and operators rename files (a `.TXT` that
 * is a ZIP, a `.zip` that is the text). Without a known signature the first 4 KiB decide: text
 * has no control bytes but tabs, line ends, the NULs and DOS end-of-file marks FORMATS.md reports.
 */
export async function fileKindOf(path: string): Promise<FileKind> {
  const handle = await open(path, 'r');
  try {
    const sample = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await handle.read(sample, 0, SAMPLE_BYTES, 0);
    return kindOfSample(sample.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** `fileKindOf` on bytes already read. */
export function kindOfSample(sample: Uint8Array): FileKind {
  const known = SIGNATURES.find(({ bytes }) => bytes.every((byte, i) => sample[i] === byte));
  if (known) return known.kind;
  let controls = 0;
  let nuls = 0;
  for (const byte of sample) {
    if (byte === 0) nuls++;
    else if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1a) controls++;
  }
  // Stray NULs are a known quirk; a file made of them (UTF-16, binary) is not.
  if (controls > sample.length / 100 || nuls > sample.length / 10) return { unsupported: 'a binary file' };
  return 'text';
}

/** The entries of an archive that can be a padrón: text files, judged by extension. */
export function isTextEntryName(name: string): boolean {
  return /\.(txt|csv)$/i.test(name) && !name.startsWith('__MACOSX/');
}
