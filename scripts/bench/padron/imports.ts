import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PadronLoadedData } from '#services/padron/padron.ts';
import { generatePadronFiles, MANIFEST_FILE, SALTA_RATES_FILE, type GeneratedFile } from '../../padron/generator/generateFiles.ts';
import { progress } from './progress.ts';

/** One file imported by the real CLI in its own process. */
export interface ImportFigure {
  file: GeneratedFile;
  load: PadronLoadedData;
  /** The import's own figure (hash, parse, COPY, index, publish), without Node's start-up. */
  seconds: number;
  /** Peak resident memory of the importing process, MB (getrusage maxrss). */
  peakRssMb: number;
}

/** Writes the generator's full set of files (every layout) into `dir`. */
export async function generateFiles(dir: string, scale: number): Promise<GeneratedFile[]> {
  progress(`generating padrón files at scale ${scale} into ${dir}`);
  const started = performance.now();
  await generatePadronFiles({ out: dir, scale, seed: 1, invalidShare: 0.001, zip: true });
  const { files } = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as { files: GeneratedFile[] };
  progress(`${files.reduce((sum, file) => sum + file.lines, 0).toLocaleString('en-US')} lines in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return files;
}

/**
 * Imports every file through `npm run padron -- import … --json`, one child process per file, so
 * each import's peak RSS is its own. Sequential: imports of one jurisdiction are, in production.
 */
export async function importFiles(dir: string, files: readonly GeneratedFile[], databaseUrl: string): Promise<ImportFigure[]> {
  const figures: ImportFigure[] = [];
  for (const file of files) {
    progress(`importing ${file.file}`);
    const args = ['--import', 'tsx', 'services/padron/cli.ts', 'import', '--state', file.state, '--file', join(dir, file.file), '--json', ...(file.regime ? ['--regime', file.regime] : [])];
    const output = await run(args, { DATABASE_URL: databaseUrl, FORJA_PADRON_SALTA_RATES: join(dir, SALTA_RATES_FILE), LOG_LEVEL: 'warn' });
    const outcome = JSON.parse(output) as { status: string; load?: PadronLoadedData; peakRssMb: number };
    if (outcome.status !== 'loaded' || !outcome.load) throw new Error(`${file.file} was not loaded: ${output}`);
    figures.push({ file, load: outcome.load, seconds: outcome.load.durationMs / 1000, peakRssMb: outcome.peakRssMb });
  }
  return figures;
}

function run(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`import exited with ${code}: ${stdout}`))));
  });
}
