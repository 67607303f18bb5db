/** A PostgreSQL or ERP message line that says why something failed, as opposed to a NOTICE or an INFO. */
export const FAILURE_LINE = /\b(ERROR|FATAL|PANIC):/;

/**
 * The lines with the failure first, in their order, then the others (NOTICE lines psql printed
 * before the error, its context), in theirs: a message cut short in a banner still says why.
 */
export function errorFirst(lines: readonly string[]): string[] {
  return [...lines.filter((line) => FAILURE_LINE.test(line)), ...lines.filter((line) => !FAILURE_LINE.test(line))];
}

/** `failures` (seen earlier, perhaps before the tail) then `tail` error-first, each line once. */
export function failureMessageLines(failures: readonly string[], tail: readonly string[]): string[] {
  return [...new Set([...failures, ...errorFirst(tail)])];
}
