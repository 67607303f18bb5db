/**
 * What an operation stopped by its job's AbortSignal rejects with: the signal's reason when it is
 * an Error (an `AbortError`, a `TimeoutError`, or whatever the runner gave), so the runner can
 * tell its own abort from a failure; otherwise an `AbortError` saying what was aborted.
 */
export function abortError(signal: AbortSignal, what: string): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error(`${what} was aborted${reason === undefined ? '' : `: ${String(reason)}`}`);
  error.name = 'AbortError';
  return error;
}

/** Throws `abortError` when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw abortError(signal, what);
}
