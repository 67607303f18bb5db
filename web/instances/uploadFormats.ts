/** What an uploaded dump is, by its first bytes: pg_dump's custom archive or plain SQL. */
export type DumpFormat = 'custom' | 'plain';
/** Migrations also take an ERP backup `.zip` (`dump.sql`, `filestore/`, `manifest.json`). */
export type UploadDumpFormat = DumpFormat | 'zip';

/** A pg_dump custom archive starts with PGDMP; a plain dump is text. Anything else is refused, with a hint when recognisable. */
export function dumpFormatOf(head: Buffer): DumpFormat | { refused: string } {
  if (head.length === 0) return { refused: 'the dump file is empty' };
  if (head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'custom';
  const refused = 'not a pg_dump custom or plain SQL file';
  if (head[0] === 0x1f && head[1] === 0x8b) return { refused: `${refused} (it is gzip-compressed: decompress it first)` };
  if (head.subarray(257, 262).toString('latin1') === 'ustar') return { refused: `${refused} (it is a tar archive: use pg_dump -Fc or plain SQL)` };
  // Text: no control characters but tab, newline, form feed and carriage return (any 8-bit encoding).
  const text = head.every((byte) => (byte >= 0x20 ? byte !== 0x7f : byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d));
  return text ? 'plain' : { refused };
}

/** A ZIP starts with a local file header, or with the end record when it is empty. */
export const isZip = (head: Buffer): boolean => head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05);

/** A filestore archive is a zip, a tar or a gzip-compressed tar. */
export function isArchive(head: Buffer): boolean {
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  const tar = head.subarray(257, 262).toString('latin1') === 'ustar';
  return isZip(head) || gzip || tar;
}

/** The longest client file name kept, in characters (code points). */
export const MAX_FILE_NAME = 200;
/** C0 and C1 controls, DEL, and the bidirectional marks and overrides that make `exe.sql` read as `lqs.exe`. */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The name the browser gave a file, fit to show and record: its base name (a browser may send a
 * whole path), without control or direction characters, at most MAX_FILE_NAME characters (the
 * middle gives way, the extension stays). `fallback` when nothing readable is left. Only ever
 * shown: blob keys come from ids, never from this.
 */
export function clientFileName(raw: string, fallback: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(UNPRINTABLE, '').trim();
  if (clean === '' || clean === '.' || clean === '..') return fallback;
  const characters = Array.from(clean);
  if (characters.length <= MAX_FILE_NAME) return clean;
  const extension = /\.[^.\s]{1,16}$/u.exec(clean)?.[0] ?? '';
  const kept = MAX_FILE_NAME - 1 - Array.from(extension).length;
  return `${characters.slice(0, kept).join('')}…${extension}`;
}
