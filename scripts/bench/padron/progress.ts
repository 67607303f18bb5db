/** Progress goes to stderr, so stdout carries only the report. */
export function progress(message: string): void {
  process.stderr.write(`[bench:padron] ${message}\n`);
}
