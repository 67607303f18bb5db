import { spawn } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { PadronTextEntry } from './padronTextEntry.ts';
import { isTextEntryName } from './fileKind.ts';
import { PadronArchiveError } from './padronArchiveError.ts';
import { RAR_TOOL_PACKAGES, type RarTool, findRarTool } from './rarTool.ts';

/**
 * The text entries of a RAR (AGIP ships RAR4), each streamed from the extractor's stdout: nothing
 * is extracted to disk or held in memory. A failing extractor fails the entry's stream with its
 * stderr, so a truncated archive is not mistaken for a short padrón.
 */
export async function* rarTextEntries(path: string): AsyncGenerator<PadronTextEntry> {
  const tool = await findRarTool();
  if (tool === null) {
    throw new PadronArchiveError(`'${path}' is a RAR archive and no RAR extractor is installed: install Debian's ${RAR_TOOL_PACKAGES} (apt-get install libarchive-tools)`);
  }
  const names = (await listEntries(tool, path)).filter(isTextEntryName);
  if (names.length === 0) throw new PadronArchiveError(`'${path}' holds no .txt or .csv file`);
  for (const name of names) {
    const stream = extractEntry(tool, path, name);
    yield { name, stream };
    await finished(stream).catch(() => undefined);
  }
}

async function listEntries(tool: RarTool, path: string): Promise<string[]> {
  const { command, args, parse } = tool.listArgs(path);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const [stdout, stderr, code] = await Promise.all([text(child.stdout), text(child.stderr), new Promise<number | null>((resolve) => child.on('close', resolve))]);
  if (code !== 0) throw new PadronArchiveError(`${tool.name} cannot list '${path}' (exit ${code}): ${stderr.trim() || 'no message'}`);
  return parse(stdout);
}

function extractEntry(tool: RarTool, path: string, name: string): Readable {
  const { command, args } = tool.extractArgs(path, name);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = new PassThrough({ highWaterMark: 1 << 20 });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  child.stdout.pipe(output, { end: false });
  child.on('error', (error) => output.destroy(new PadronArchiveError(`${tool.name} failed on '${path}': ${error.message}`)));
  child.on('close', (code) => {
    if (code === 0) output.end();
    else output.destroy(new PadronArchiveError(`${tool.name} could not extract '${name}' from '${path}' (exit ${code}): ${stderr.trim() || 'no message'}`));
  });
  // A consumer that stops early must not leave the extractor blocked on a full pipe.
  output.on('close', () => {
    if (child.exitCode === null) child.kill();
  });
  return output;
}

async function text(stream: Readable): Promise<string> {
  let result = '';
  for await (const chunk of stream.setEncoding('utf8')) result += String(chunk);
  return result;
}
