/**
 * A file that cannot be imported as asked: wrong layout for the jurisdiction, regime that cannot
 * be told, missing Salta rate table. Its message is one line meant for the operator, so it names
 * the file, what was expected and what to do.
 */
export class PadronFormatError extends Error {
  override readonly name = 'PadronFormatError';
}
