/**
 * The folders and file name an archive entry is written to, below the extraction folder, or why
 * it may not be written: an absolute path, a `..` step or a NUL could place it anywhere on the
 * host. `.` steps and repeated or trailing slashes are dropped; an empty result (`./`) is the
 * folder itself. Backslashes are ordinary characters here, as on Linux (yauzl already turned a
 * Windows ZIP's into slashes).
 */
export function safeEntryPath(name: string): { parts: string[] } | { refused: string } {
  if (name.includes('\0')) return { refused: 'holds a NUL character' };
  if (name.startsWith('/')) return { refused: 'is an absolute path' };
  const parts = name.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) return { refused: "climbs out of the archive's folder with '..'" };
  return { parts };
}
