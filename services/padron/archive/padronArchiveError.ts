/**
 * A padrón file that cannot be opened: not text nor a ZIP or RAR, an archive with no text file
 * inside, a RAR with no extractor installed. One line for the operator, naming the file.
 */
export class PadronArchiveError extends Error {
  override readonly name = 'PadronArchiveError';
}
