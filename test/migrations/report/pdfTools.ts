import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';

/** The PDF's text as poppler's pdftotext reads it, page layout kept. */
export function pdfToText(pdf: Buffer, dir: string, name: string): string {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  const result = spawnSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`pdftotext failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

/** Renders page `page` to `<dir>/<name>-<page>.png` with pdftoppm; returns the PNG's path. */
export function renderPage(pdf: Buffer, dir: string, name: string, page: number): string {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  const prefix = join(dir, `${name}-page`);
  const result = spawnSync('pdftoppm', ['-png', '-r', '72', '-f', String(page), '-l', String(page), '-singlefile', file, prefix], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`pdftoppm failed (${result.status}): ${result.stderr}`);
  return `${prefix}.png`;
}

/** Size of a PNG and the share of its pixels that are not (nearly) white. */
export function inkOf(pngFile: string): { width: number; height: number; ink: number } {
  const png = PNG.sync.read(readFileSync(pngFile));
  let dark = 0;
  for (let index = 0; index < png.data.length; index += 4) {
    if (png.data[index]! < 230 || png.data[index + 1]! < 230 || png.data[index + 2]! < 230) dark += 1;
  }
  return { width: png.width, height: png.height, ink: dark / (png.width * png.height) };
}
