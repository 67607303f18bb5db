import { constants } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { throwIfAborted } from '../abortError.ts';
import { filestoreEntries } from './filestoreEntries.ts';
import { type FilestoreLimits, filestoreRefusal } from './filestoreLimits.ts';
import { safeEntryPath } from './safeEntryPath.ts';

/** Never through a link: none is ever created here, but a filestore is written as root. */
const CREATE_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/** Where an entry (its safe path) goes below the extraction folder, or `undefined` to leave it out unwritten and uncounted. */
export type EntryPick = (parts: string[]) => string[] | undefined;

/**
 * Writes the files and folders of a filestore archive below `into`, a fresh empty folder. Refused,
 * before a byte of it is written: the entry that takes the archive past `limits`, a path leading
 * out of `into`, and links and special files (the ERP would serve whatever a link points to as an
 * attachment). Owners and modes in the archive are ignored: files get 0644 and folders 0755, less
 * the umask. `pick` takes part of the archive (an ERP backup's `filestore/`): every entry's path is
 * still checked, only the picked ones are counted and written. Throws on the first problem, or
 * once `signal` fired; the caller removes `into`.
 */
export async function unpackFilestore(archive: string, into: string, limits: FilestoreLimits, signal?: AbortSignal, pick: EntryPick = (parts) => parts): Promise<void> {
  const archiveBytes = (await stat(archive)).size;
  const totals = { entries: 0, bytes: 0 };
  const folders = new Set<string>();
  const folder = async (path: string) => {
    if (folders.has(path)) return;
    await mkdir(path, { recursive: true });
    folders.add(path);
  };
  for await (const entry of filestoreEntries(archive)) {
    throwIfAborted(signal, `extracting filestore archive ${archive}`);
    const path = safeEntryPath(entry.name);
    if ('refused' in path) throw new Error(`${entry.name} ${path.refused}`);
    const parts = pick(path.parts);
    if (parts === undefined || parts.length === 0) continue;
    totals.entries++;
    totals.bytes += entry.size;
    const refusal = filestoreRefusal(totals, archiveBytes, limits);
    if (refusal !== undefined) throw new Error(refusal);
    const target = join(into, ...parts);
    if (entry.kind === 'folder') {
      await folder(target);
    } else if (entry.kind === 'file') {
      await folder(dirname(target));
      await writeFile(target, await entry.open(), { flag: CREATE_FILE, mode: 0o644 });
    } else {
      throw new Error(`${entry.name} is a ${entry.kind}; a filestore holds only files and folders`);
    }
  }
}
