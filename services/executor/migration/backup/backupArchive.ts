import { createWriteStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { throwIfAborted } from '../../abortError.ts';
import { filestoreArchiveFormat, filestoreEntries } from '../../database/filestoreEntries.ts';
import { type FilestoreLimits, expansionRefusal } from '../../database/filestoreLimits.ts';
import type { EntryPick } from '../../database/unpackFilestore.ts';
import { safeEntryPath } from '../../database/safeEntryPath.ts';
import { InputRefusedError, isSystemError } from '../inputRefused.ts';
import { MANIFEST_MAX_BYTES, parseBackupManifest, type BackupManifest } from './backupManifest.ts';

/**
 * An ERP backup .zip, as the ERP's database manager makes it: `dump.sql` (pg_dump's plain SQL),
 * `manifest.json` and `filestore/` (the attachment tree, `ab/abcdef…`), all at its top.
 */
export interface BackupCatalog {
  /** Bytes of `dump.sql` once extracted, or undefined when the zip has none. */
  dumpBytes: number | undefined;
  manifest: BackupManifest | undefined;
  /** What is at the zip's top (`filestore/ (12 files)`, `db.dump`): named when there is no dump.sql. */
  top: string[];
}

const DUMP = 'dump.sql';
const MANIFEST = 'manifest.json';
const FILESTORE = 'filestore';

/** Whether the file is a ZIP archive (by its first bytes, never by a name). */
export async function isZipArchive(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return filestoreArchiveFormat(head.subarray(0, bytesRead)) === 'zip';
  } finally {
    await handle.close();
  }
}

/** Entries under `filestore/`, that folder stripped: what the working filestore gets of a backup. */
export const backupFilestorePick: EntryPick = (parts) => (parts[0] === FILESTORE ? parts.slice(1) : undefined);

/**
 * Reads the zip's central directory (no entry is inflated but manifest.json) and its manifest.
 * Rejects with an InputRefusedError when the zip cannot be read, holds an unsafe path, or has a
 * manifest that is not JSON.
 */
export async function readBackupCatalog(zip: string, signal?: AbortSignal): Promise<BackupCatalog> {
  let dumpBytes: number | undefined;
  let manifest: BackupManifest | undefined;
  const top = new Map<string, { folder: boolean; files: number }>();
  await refusing(signal, async () => {
    for await (const entry of filestoreEntries(zip)) {
      throwIfAborted(signal, `reading the backup ${zip}`);
      const path = safeEntryPath(entry.name);
      if ('refused' in path) throw new InputRefusedError(`its entry ${entry.name} ${path.refused}`);
      const [first, ...rest] = path.parts;
      if (first === undefined) continue;
      const seen = top.get(first) ?? { folder: rest.length > 0 || entry.kind === 'folder', files: 0 };
      if (entry.kind !== 'folder') seen.files++;
      top.set(first, seen);
      const name = path.parts.join('/');
      if (name === DUMP && entry.kind === 'file') dumpBytes = entry.size;
      if (name === MANIFEST && entry.kind === 'file') {
        if (entry.size > MANIFEST_MAX_BYTES) throw new InputRefusedError(`its manifest.json is ${entry.size} bytes, more than a manifest ever is (${MANIFEST_MAX_BYTES})`);
        manifest = parseBackupManifest((await buffer(await entry.open())).toString('utf8'));
      }
    }
  });
  const listed = [...top].map(([name, { folder, files }]) => (folder ? `${name}/ (${files} file(s))` : name));
  return { dumpBytes, manifest, top: listed };
}

/** Why the catalog is not a backup a migration can restore, or undefined. */
export function missingDump(catalog: BackupCatalog): string | undefined {
  if (catalog.dumpBytes !== undefined) return undefined;
  const holds = catalog.top.length === 0 ? 'nothing' : `${catalog.top.slice(0, 10).join(', ')}${catalog.top.length > 10 ? ` and ${catalog.top.length - 10} more` : ''}`;
  return `the input is a .zip without dump.sql at its top (it holds ${holds}): give the ERP's own backup .zip (dump.sql, manifest.json, filestore/), or the dump itself`;
}

/** The limits a backup's dump.sql is held to: the filestore's bytes and ratio (FORJA_FILESTORE_MAX_BYTES, _RATIO). */
export type DumpLimits = Pick<FilestoreLimits, 'maxBytes' | 'maxRatio'>;

/**
 * Streams the zip's dump.sql into `toFile`, written aside and renamed, so a file at `toFile` is
 * always whole. Never held in memory. Refused with an InputRefusedError, the partial copy removed,
 * when it would expand past `limits`: by its declared size before a byte is written, and by the
 * bytes counted as they are written, so a dump.sql of one repeated byte cannot fill the disk.
 */
export async function extractBackupDump(zip: string, toFile: string, limits: DumpLimits, signal: AbortSignal): Promise<{ bytes: number }> {
  const part = `${toFile}.part`;
  await rm(part, { force: true });
  try {
    const zipBytes = (await stat(zip)).size;
    let bytes: number | undefined;
    await refusing(signal, async () => {
      for await (const entry of filestoreEntries(zip)) {
        const path = safeEntryPath(entry.name);
        if ('refused' in path || path.parts.join('/') !== DUMP || entry.kind !== 'file') continue;
        refuseExpansion(entry.size, zipBytes, limits);
        await pipeline(await entry.open(), counted(zipBytes, limits), createWriteStream(part, { mode: 0o600 }), { signal });
        bytes = entry.size;
        break;
      }
    });
    if (bytes === undefined) throw new InputRefusedError('the .zip has no dump.sql');
    await rename(part, toFile);
    return { bytes };
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
}

/**
 * Passes the dump's bytes on, refusing at the chunk that crosses a limit. The declared size is
 * the zip's own word, kept only as long as the reader validates it (yauzl's validateEntrySizes):
 * the count is what holds whatever reads the zip.
 */
function counted(zipBytes: number, limits: DumpLimits) {
  return async function* (chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    let written = 0;
    for await (const chunk of chunks) {
      written += chunk.length;
      refuseExpansion(written, zipBytes, limits);
      yield chunk;
    }
  };
}

function refuseExpansion(bytes: number, zipBytes: number, limits: DumpLimits): void {
  const refusal = expansionRefusal(bytes, zipBytes, limits);
  if (refusal !== undefined) throw new InputRefusedError(`its dump.sql ${refusal}; nothing of it was kept`);
}

/** What the zip reader rejects with (not readable, an unsafe name, an entry past its declared size) is the backup's fault, not the machine's. */
async function refusing(signal: AbortSignal | undefined, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    throwIfAborted(signal, 'reading the backup');
    if (isSystemError(error)) throw error;
    throw new InputRefusedError(`the input .zip was refused: ${(error as Error).message}`, { cause: error });
  }
}
