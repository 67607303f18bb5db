import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The dump formats a restore accepts: pg_dump's custom archive (`-Fc`), plain SQL text, and a
 * directory dump (`-Fd`, a folder holding `toc.dat`: what the vendor's upgrade platform returns).
 */
export type DumpFormat = 'custom' | 'plain' | 'directory';

const SNIFF_BYTES = 1024;

/**
 * Tells a dump's format from its first kilobyte: `PGDMP` opens a custom archive; printable text
 * is plain SQL. Anything else is refused with what was expected, naming the usual mistakes
 * (compressed, zipped or tar-format dumps).
 */
export async function detectDumpFormat(file: string): Promise<DumpFormat> {
  if ((await stat(file)).isDirectory()) {
    const toc = await stat(join(file, 'toc.dat')).catch(() => null);
    if (toc?.isFile()) return 'directory';
    throw new Error(`${file} is a folder without toc.dat: expected a pg_dump directory dump (pg_dump -Fd), a custom-format archive or a plain SQL dump`);
  }
  const head = await firstBytes(file);
  if (head.length === 0) throw new Error(`${file} is empty: expected a pg_dump custom-format archive or a plain SQL dump`);
  if (head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'custom';
  const expected = 'expected a pg_dump custom-format archive (pg_dump -Fc, starts with PGDMP) or a plain SQL dump (text)';
  if (head[0] === 0x1f && head[1] === 0x8b) throw new Error(`${file} is gzip-compressed: decompress it first (${expected})`);
  if (head.subarray(0, 4).toString('latin1') === 'PK\x03\x04') {
    // Only a migration's restore unpacks an ERP backup .zip (services/executor/migration/backup); it never gets here with one.
    throw new Error(`${file} is a ZIP archive: an instance restores a dump, so upload the ERP backup's dump.sql as the dump and its filestore/ as the filestore archive, or migrate the whole .zip (${expected})`);
  }
  if (head.subarray(257, 262).toString('latin1') === 'ustar') throw new Error(`${file} is a tar archive (pg_dump -Ft is not accepted): ${expected}`);
  if (isText(head)) return 'plain';
  throw new Error(`${file} is not a dump: ${expected}`);
}

async function firstBytes(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** No control characters but tab, line feed, form feed and carriage return; bytes above 127 are any encoding's letters. */
function isText(bytes: Buffer): boolean {
  return bytes.every((byte) => byte >= 0x20 ? byte !== 0x7f : byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d);
}
