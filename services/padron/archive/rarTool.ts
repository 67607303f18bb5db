import { findOnPath } from '#shared/local/requiredTool.ts';

/**
 * A command-line RAR reader from Debian main (the `unrar` that handles every RAR is non-free).
 * Both candidates read RAR4 (AGIP's format) and RAR5, list entries and write one entry to stdout,
 * so entries stream without a temporary directory.
 */
export interface RarTool {
  name: string;
  /** Arguments listing the archive's entries, one name per stdout line. */
  listArgs(archive: string): { command: string; args: string[]; parse(stdout: string): string[] };
  /** Command and arguments writing one entry's bytes to stdout. */
  extractArgs(archive: string, entry: string): { command: string; args: string[] };
}

/** The Debian packages to name when none is installed. */
export const RAR_TOOL_PACKAGES = 'libarchive-tools (bsdtar) or unar';

/** bsdtar first (libarchive-tools: small, no GUI-library dependencies), then unar/lsar; null when neither. */
export async function findRarTool(): Promise<RarTool | null> {
  const bsdtar = findOnPath('bsdtar');
  if (bsdtar !== undefined) {
    return {
      name: 'bsdtar',
      listArgs: (archive) => ({ command: bsdtar, args: ['-tf', archive], parse: (stdout) => stdout.split('\n').filter((line) => line !== '') }),
      // `-O` writes to stdout. bsdtar reads the name as a pattern; agency file names hold no wildcards.
      extractArgs: (archive, entry) => ({ command: bsdtar, args: ['-xOf', archive, entry] }),
    };
  }
  const unar = findOnPath('unar');
  const lsar = findOnPath('lsar');
  if (unar !== undefined && lsar !== undefined) {
    return {
      name: 'unar',
      listArgs: (archive) => ({ command: lsar, args: ['-j', archive], parse: parseLsarJson }),
      extractArgs: (archive, entry) => ({ command: unar, args: ['-q', '-o', '-', archive, entry] }),
    };
  }
  return null;
}

function parseLsarJson(stdout: string): string[] {
  const listing = JSON.parse(stdout) as { lsarContents?: Array<{ XADFileName?: string; XADIsDirectory?: boolean }> };
  return (listing.lsarContents ?? []).filter((item) => item.XADIsDirectory !== true).flatMap((item) => (item.XADFileName === undefined ? [] : [item.XADFileName]));
}
