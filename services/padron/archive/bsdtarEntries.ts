import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { extract as tarExtract } from 'tar-stream';
import { PadronArchiveError } from './padronArchiveError.ts';
import type { RarEntry } from './rarEntry.ts';

/**
 * The entries of an archive through bsdtar, in one pass: `bsdtar -c @archive` copies the entries
 * of an archive into a new one, here a tar stream on its stdout that tar-stream splits again. No
 * entry name is ever on bsdtar's command line: names are data, and one named
 * `--use-compress-program=…` passed to `bsdtar -x` ran as an option. Names are copied as bytes
 * (`hdrcharset=BINARY`): converting AGIP's Latin-1 names to UTF-8 fails in some locales. A tar
 * stream holds exactly the size its header gives, so each entry's size is true.
 */
export async function* bsdtarEntries(bsdtar: string, archive: string, shownAs: string): AsyncGenerator<RarEntry> {
  const child = spawn(bsdtar, ['-c', '-f', '-', '--format', 'paxr', '--options', 'hdrcharset=BINARY', `@${archive}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  let spawnError: Error | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => resolve(code));
    child.on('error', (error) => {
      spawnError = error;
      resolve(null);
    });
  });
  const tar = tarExtract();
  child.on('error', (error) => tar.destroy(error));
  child.stdout.pipe(tar as unknown as NodeJS.WritableStream);

  /** What went wrong, in bsdtar's words when it failed (a truncated archive only shows as a tar stream cut short). */
  const failure = async (cause: unknown): Promise<PadronArchiveError> => {
    if (running(child)) child.kill();
    const code = await exited;
    if (spawnError) return new PadronArchiveError(`bsdtar cannot be run to read '${shownAs}': ${spawnError.message}`);
    if (code !== null && code !== 0) return new PadronArchiveError(`bsdtar cannot read '${shownAs}' (exit ${code}): ${diagnosis(stderr)}`);
    return new PadronArchiveError(`'${shownAs}' cannot be read: ${cause instanceof Error ? cause.message : String(cause)}`);
  };

  try {
    for await (const source of tar) {
      const { name, type, size } = source.header;
      let output: PassThrough | undefined;
      let feeding: Promise<void> = Promise.resolve();
      yield {
        name,
        isFile: type === 'file',
        size,
        open: () => {
          if (output === undefined) {
            output = new PassThrough({ highWaterMark: 1 << 20 });
            feeding = feed(source, output, failure);
          }
          return output;
        },
      };
      // The next entry follows this one's bytes in the same stream: read past what was left unread.
      if (output === undefined) await feed(source, undefined, failure);
      else if (!output.readableEnded) output.destroy();
      await feeding;
    }
    const code = await exited;
    if (code !== 0) throw await failure(new Error(`bsdtar exited with ${code}`));
  } catch (error) {
    throw error instanceof PadronArchiveError ? error : await failure(error);
  } finally {
    if (running(child)) child.kill();
  }
}

/** Copies an entry's bytes to `output` while someone reads it, then discards the rest. Never rejects. */
async function feed(source: AsyncIterable<unknown>, output: PassThrough | undefined, failure: (cause: unknown) => Promise<Error>): Promise<void> {
  try {
    for await (const chunk of source) {
      if (output === undefined || output.destroyed) continue;
      if (!output.write(chunk as Buffer)) await writable(output);
    }
    output?.end();
  } catch (error) {
    const reason = await failure(error);
    output?.destroy(reason);
  }
}

function writable(stream: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done);
      resolve();
    };
    stream.on('drain', done).on('close', done);
  });
}

function running(child: { exitCode: number | null; signalCode: NodeJS.Signals | null }): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** bsdtar's stderr without its noise: RAR errors often read `(null)`, and every failure ends with `Error exit delayed…`. */
function diagnosis(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.replace(/^bsdtar: /, '').trim())
    .filter((line) => line !== '' && line !== '(null)' && !line.startsWith('Error exit delayed'));
  return lines.join('; ') || 'the archive is damaged or truncated';
}
