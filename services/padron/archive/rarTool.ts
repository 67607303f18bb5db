import { findOnPath } from '#shared/local/findOnPath.ts';
import { bsdtarEntries } from './bsdtarEntries.ts';
import type { RarEntry } from './rarEntry.ts';
import { unarEntries } from './unarEntries.ts';

/**
 * A command-line RAR reader from Debian main (the `unrar` that handles every RAR is non-free).
 * Both candidates read RAR4 (AGIP's format) and RAR5 and stream entries without a temporary
 * directory.
 */
export interface RarTool {
  name: string;
  /**
   * The entries of `archive` (an absolute path; `shownAs` is how messages name it), in order.
   * No entry name ever goes on a command line.
   */
  entries(archive: string, shownAs: string): AsyncGenerator<RarEntry>;
}

/** The Debian packages to name when none is installed. */
export const RAR_TOOL_PACKAGES = 'libarchive-tools (bsdtar) or unar';

/** bsdtar first (libarchive-tools: small, no GUI-library dependencies), then unar/lsar; null when neither. */
export async function findRarTool(): Promise<RarTool | null> {
  const bsdtar = findOnPath('bsdtar');
  if (bsdtar !== undefined) return { name: 'bsdtar', entries: (archive, shownAs) => bsdtarEntries(bsdtar, archive, shownAs) };
  const unar = findOnPath('unar');
  const lsar = findOnPath('lsar');
  if (unar !== undefined && lsar !== undefined) return { name: 'unar', entries: (archive, shownAs) => unarEntries(unar, lsar, archive, shownAs) };
  return null;
}
