/**
 * Parse throughput over a generated padrón set, end to end from disk: archive (ZIP inflation for
 * B), line reader, detection, parser. No database: this is the ceiling the parsing side sets for
 * an import. Also checks every file against the manifest, so a fast wrong parse cannot pass.
 * `npx tsx scripts/padron/generator/measureParse.ts DIR` (DIR written by `npm run padron:generate`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { openPadronEntries } from '#services/padron/archive/openPadronEntries.ts';
import { DETECTION_LINES, openParser } from '#services/padron/parse/detect.ts';
import { peekLines, readLineBatches } from '#services/padron/parse/lines.ts';
import { type GeneratedFile, MANIFEST_FILE, SALTA_RATES_FILE } from './generateFiles.ts';

interface Count {
  lines: number;
  records: number;
  rejects: Record<string, number>;
}

async function parseFile(dir: string, file: GeneratedFile, saltaRates: unknown): Promise<Count> {
  const count: Count = { lines: 0, records: 0, rejects: {} };
  for await (const entry of openPadronEntries(join(dir, file.file))) {
    const { firstLines, batches } = await peekLines(readLineBatches(entry.stream), DETECTION_LINES);
    const parser = openParser({ state: file.state, fileName: entry.name, firstLines, saltaRates, ...(file.regime === undefined ? {} : { regime: file.regime }) });
    for await (const { lines, firstLineNumber } of batches) {
      count.lines += lines.length;
      for (let i = 0; i < lines.length; i++) {
        const result = parser.parseLine(lines[i] ?? '', firstLineNumber + i);
        if (result === null) continue;
        if (Array.isArray(result)) count.records += result.length;
        else count.rejects[result.reason] = (count.rejects[result.reason] ?? 0) + 1;
      }
    }
  }
  return count;
}

const dir = process.argv[2];
if (dir === undefined) {
  console.error('usage: tsx scripts/padron/generator/measureParse.ts DIR');
  process.exit(2);
}
const { files } = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as { files: GeneratedFile[] };
const saltaRates: unknown = JSON.parse(await readFile(join(dir, SALTA_RATES_FILE), 'utf8'));
let totalLines = 0;
let mismatches = 0;
const started = performance.now();
const cpuStarted = process.cpuUsage();
for (const file of files) {
  const fileStarted = performance.now();
  const count = await parseFile(dir, file, saltaRates);
  const seconds = (performance.now() - fileStarted) / 1000;
  const matches = isDeepStrictEqual(count, { lines: file.lines, records: file.records, rejects: file.rejects });
  if (!matches) mismatches++;
  totalLines += count.lines;
  console.log(`${matches ? 'ok      ' : 'MISMATCH'} ${file.file.padEnd(44)} ${String(count.lines).padStart(9)} lines ${String(count.records).padStart(9)} records ${String(Math.round(count.lines / seconds)).padStart(9)} lines/s`);
}
const seconds = (performance.now() - started) / 1000;
// CPU time as well as wall time: on a shared two-core machine the wall clock measures the neighbours too.
const cpu = process.cpuUsage(cpuStarted);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const rss = process.memoryUsage().rss / 2 ** 20;
console.log(`${totalLines} lines in ${seconds.toFixed(2)} s → ${Math.round(totalLines / seconds)} lines/s; ${cpuSeconds.toFixed(2)} CPU s → ${Math.round(totalLines / cpuSeconds)} lines per CPU-second; RSS ${rss.toFixed(0)} MiB${mismatches > 0 ? `, ${mismatches} file(s) not as the manifest says` : ''}`);
process.exitCode = mismatches > 0 ? 1 : 0;
