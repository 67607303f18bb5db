/**
 * A migration input Forja will not take (a damaged backup, a path leading out of the filestore, a
 * link): the step fails saying so in plain words, without retrying, since the same input fails
 * the same way.
 */
export class InputRefusedError extends Error {
  override readonly name = 'InputRefusedError';
}

/** An error of the machine (no space, no permission) rather than of the input: a retry, or the operator, may fix it. */
export function isSystemError(error: unknown): boolean {
  const candidate = error as NodeJS.ErrnoException | undefined;
  return typeof candidate?.code === 'string' && candidate.syscall !== undefined;
}
