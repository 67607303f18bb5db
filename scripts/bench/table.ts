/** Plain-text formatting for the report. */

export const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
export const int = (value: number) => Math.round(value).toLocaleString('en-US');
export const percent = (value: number) => `${Math.round(value * 100)} %`;

/** Plain-text columns padded to the widest cell; `align` has one letter per column, l or r. */
export function table(headers: string[], rows: string[][], align: string): string[] {
  const all = [headers, ...rows];
  const widths = headers.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const format = (row: string[]) =>
    row
      .map((cell, column) => (align[column] === 'r' ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join('   ')
      .trimEnd();
  return [format(headers), widths.map((width) => '-'.repeat(width)).join('   '), ...rows.map(format)];
}

/** `min–max`, or nothing for fewer than two values. */
export const spread = (values: number[], format: (value: number) => string) =>
  values.length < 2 ? '' : `${format(Math.min(...values))}–${format(Math.max(...values))}`;

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
