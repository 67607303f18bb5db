/**
 * An import refused before any work because of what was asked: unknown jurisdiction, missing
 * file, unreadable rate table. Its message is one line for the operator; the CLI exits 2 on it.
 */
export class PadronInputError extends Error {
  override readonly name = 'PadronInputError';
}
