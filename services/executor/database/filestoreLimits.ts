import { formatBytes } from '#shared/formatBytes.ts';
import { type ExecutorSettings, executorSettingsSchema } from '../executor.settings.ts';

/** How far an uploaded filestore archive may expand (FORJA_FILESTORE_MAX_*). */
export interface FilestoreLimits {
  maxBytes: number;
  maxFiles: number;
  maxRatio: number;
}

/**
 * Below this much a filestore is not judged by its ratio: a few text attachments may compress far
 * beyond it, and 64 MiB on disk is harmless.
 */
export const RATIO_FLOOR_BYTES = 64 * 2 ** 20;

export function filestoreLimits(settings: Pick<ExecutorSettings, 'FORJA_FILESTORE_MAX_BYTES' | 'FORJA_FILESTORE_MAX_FILES' | 'FORJA_FILESTORE_MAX_RATIO'>): FilestoreLimits {
  return { maxBytes: settings.FORJA_FILESTORE_MAX_BYTES, maxFiles: settings.FORJA_FILESTORE_MAX_FILES, maxRatio: settings.FORJA_FILESTORE_MAX_RATIO };
}

const { FORJA_FILESTORE_MAX_BYTES, FORJA_FILESTORE_MAX_FILES, FORJA_FILESTORE_MAX_RATIO } = executorSettingsSchema.properties;

/** The settings' defaults. */
export const DEFAULT_FILESTORE_LIMITS: FilestoreLimits = {
  maxBytes: FORJA_FILESTORE_MAX_BYTES.default,
  maxFiles: FORJA_FILESTORE_MAX_FILES.default,
  maxRatio: FORJA_FILESTORE_MAX_RATIO.default,
};

/** What an archive has expanded to so far: its entries and their bytes, the next one included. */
export interface FilestoreTotals {
  entries: number;
  bytes: number;
}

/**
 * Why extraction must stop before the next entry, or undefined. Checked with each entry's size
 * before it is written (sizes the readers hold entries to), so a bomb is refused at the entry
 * that crosses a limit, before its bytes reach the disk.
 */
export function filestoreRefusal(totals: FilestoreTotals, archiveBytes: number, limits: FilestoreLimits): string | undefined {
  if (totals.entries > limits.maxFiles) return `it holds more than ${limits.maxFiles} files and folders (FORJA_FILESTORE_MAX_FILES)`;
  const expansion = expansionRefusal(totals.bytes, archiveBytes, limits);
  return expansion === undefined ? undefined : `it ${expansion}`;
}

/**
 * Why `bytes` expanded from an archive of `archiveBytes` is too much (`would expand to …`, naming
 * the setting), or undefined: the byte and ratio limits alone, which a backup's dump.sql is held
 * to as well, so one .zip cannot fill the disk through the entry the filestore limits skip.
 */
export function expansionRefusal(bytes: number, archiveBytes: number, limits: Pick<FilestoreLimits, 'maxBytes' | 'maxRatio'>): string | undefined {
  if (bytes > limits.maxBytes) return `would expand to more than ${formatBytes(limits.maxBytes)} (FORJA_FILESTORE_MAX_BYTES)`;
  if (bytes > RATIO_FLOOR_BYTES && bytes > archiveBytes * limits.maxRatio) {
    return `would expand to at least ${formatBytes(bytes)} from ${formatBytes(archiveBytes)}, more than ${limits.maxRatio} times its size (FORJA_FILESTORE_MAX_RATIO): an archive bomb, or files of one repeated byte`;
  }
  return undefined;
}
