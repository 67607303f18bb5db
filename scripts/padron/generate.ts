/**
 * Writes a synthetic padrón in every jurisdiction's layout, for load tests and demos:
 * `npm run padron:generate -- --out DIR [--scale N]`. Scale 1 is over 3 million rows.
 */
import { generatePadronFiles } from './generator/generateFiles.ts';
import { readOptions } from './generator/options.ts';

try {
  const options = readOptions(process.argv.slice(2));
  const started = performance.now();
  const files = await generatePadronFiles(options);
  const seconds = (performance.now() - started) / 1000;
  for (const file of files) {
    const rejected = Object.values(file.rejects).reduce((sum, count) => sum + count, 0);
    console.log(`${file.state}${file.regime ?? ' '} ${file.file.padEnd(44)} ${String(file.lines).padStart(9)} lines ${(file.bytes / 1e6).toFixed(1).padStart(7)} MB  ${String(rejected).padStart(5)} rejects expected`);
  }
  const lines = files.reduce((sum, file) => sum + file.lines, 0);
  const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
  console.log(`${lines} lines, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s → ${options.out}`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(2);
}
