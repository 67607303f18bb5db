/**
 * Why a download failed. Messages show URLs through `displayUrl` only, so they can go to the run's
 * log and page as they are.
 * - `refused`: the URL, a redirect or an address the host resolves to may not be reached.
 * - `unresolved`: DNS gave no address (may recover).
 * - `http`: the server answered an error status (`status`); 408, 429 and 5xx may recover.
 * - `too_large`: over the size cap (Content-Length, Content-Range or bytes streamed); the partial file is deleted.
 * - `redirects`: more redirects than allowed.
 * - `network`: connection lost, stalled or cut short; the partial file is kept for a resume.
 * - `protocol`: the server answered what a download cannot use (a wrong Content-Range…).
 */
export type DownloadErrorKind = 'refused' | 'unresolved' | 'http' | 'too_large' | 'redirects' | 'network' | 'protocol';

export class DownloadError extends Error {
  override readonly name = 'DownloadError';
  /** True when the same download may succeed later (a step retry resumes from the partial file). */
  readonly retryable: boolean;
  readonly status: number | undefined;

  constructor(
    readonly kind: DownloadErrorKind,
    message: string,
    status?: number,
  ) {
    super(message);
    this.status = status;
    this.retryable = kind === 'network' || kind === 'unresolved' || kind === 'protocol' || (kind === 'http' && status !== undefined && (status >= 500 || status === 408 || status === 429));
  }
}
