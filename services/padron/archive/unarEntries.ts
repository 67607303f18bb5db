import { spawn } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { PadronArchiveError } from './padronArchiveError.ts';
import type { RarEntry } from './rarEntry.ts';

interface ListedEntry {
  name: string;
  index: number;
  isFile: boolean;
  size: number;
}

/**
 * The entries of an archive through The Unarchiver: lsar lists them with their indexes and sizes,
 * then unar writes each to stdout chosen by index (`-i`), so no entry name is ever on a command
 * line (a name is data: one named like an option was once run as one). The archive path is
 * absolute, so it cannot pass for an option either. unar's output is held to the listed size, so
 * the size judged before reading is the size read.
 */
export async function* unarEntries(unar: string, lsar: string, archive: string, shownAs: string): AsyncGenerator<RarEntry> {
  const listing = await run(lsar, ['-j', archive]);
  if (listing.code !== 0) throw new PadronArchiveError(`lsar cannot list '${shownAs}' (exit ${listing.code}): ${listing.stderr.trim() || 'no message'}`);
  for (const entry of parseListing(listing.stdout, shownAs)) {
    let output: Readable | undefined;
    yield { name: entry.name, isFile: entry.isFile, size: entry.size, open: () => (output ??= extractEntry(unar, archive, entry, shownAs)) };
    if (output !== undefined && !output.readableEnded) output.destroy();
  }
}

/** `unar -o - -i archive <index>` writes that one entry to stdout; more bytes than listed fail the stream. */
function extractEntry(unar: string, archive: string, entry: ListedEntry, shownAs: string): Readable {
  const child = spawn(unar, ['-q', '-o', '-', '-i', archive, String(entry.index)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = new PassThrough({ highWaterMark: 1 << 20 });
  let stderr = '';
  let bytes = 0;
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > entry.size) output.destroy(new PadronArchiveError(`unar wrote more of '${entry.name}' than the ${entry.size} bytes lsar lists for it in '${shownAs}'`));
  });
  child.stdout.pipe(output, { end: false });
  child.on('error', (error) => output.destroy(new PadronArchiveError(`unar failed on '${shownAs}': ${error.message}`)));
  child.on('close', (code) => {
    if (code === 0) output.end();
    else output.destroy(new PadronArchiveError(`unar could not extract '${entry.name}' from '${shownAs}' (exit ${code}): ${stderr.trim() || 'no message'}`));
  });
  // A reader that stops early (or an entry cut at its size) must not leave unar blocked on a full pipe.
  output.on('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  });
  return output;
}

function parseListing(stdout: string, shownAs: string): ListedEntry[] {
  let listing: { lsarContents?: Array<{ XADFileName?: string; XADIndex?: number; XADIsDirectory?: boolean; XADIsLink?: boolean; XADFileSize?: number }> };
  try {
    listing = JSON.parse(stdout) as typeof listing;
  } catch (error) {
    throw new PadronArchiveError(`lsar's listing of '${shownAs}' is not JSON: ${(error as Error).message}`);
  }
  return (listing.lsarContents ?? []).flatMap((item, position) =>
    item.XADFileName === undefined
      ? []
      : [{ name: item.XADFileName, index: item.XADIndex ?? position, isFile: item.XADIsDirectory !== true && item.XADIsLink !== true, size: item.XADFileSize ?? 0 }],
  );
}

async function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const text = async (stream: Readable) => {
    let result = '';
    for await (const chunk of stream.setEncoding('utf8')) result += String(chunk);
    return result;
  };
  const [stdout, stderr, code] = await Promise.all([text(child.stdout), text(child.stderr), new Promise<number | null>((resolve) => child.on('close', resolve).on('error', () => resolve(null)))]);
  return { code, stdout, stderr };
}
