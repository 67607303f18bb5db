/**
 * Where a request stands on the platform: kept (mode 0600, out of the ERP's reach) so a retry
 * after a crash goes on with the same request, as the vendor's script keeps its token file.
 */
export interface UpgradeRequestRef {
  requestId: string;
  /** The request's secret: whoever holds it can read the customer's database. */
  token: string;
  /** The platform's node that holds the request (`assigned_host_uri`): every later call and transfer goes there. */
  hostUri: string;
}

/**
 * - `refused`: the platform answered with an error (wrong contract, aim, version, unknown request);
 * - `transport`: no usable answer, or a transfer broke (connection dropped, timeout, HTTP 5xx, rsync or ssh failed);
 * - `protocol`: an answer Forja does not understand, or a host it must not trust;
 * - `failed` / `cancelled`: the platform ended the request so;
 * - `timeout`: the platform was still working when the run stopped waiting.
 */
export type UpgradeErrorKind = 'refused' | 'transport' | 'protocol' | 'failed' | 'cancelled' | 'timeout';

export interface UpgradeErrorDetails {
  httpStatus?: number;
  platformState?: string;
  request?: UpgradeRequestRef;
}

export class UpgradeServiceError extends Error {
  override name = 'UpgradeServiceError';

  constructor(
    message: string,
    readonly kind: UpgradeErrorKind,
    readonly details: UpgradeErrorDetails = {},
  ) {
    super(message);
  }

  /** A retry can help: the platform was unreachable, or is still working on the same request. */
  get retryable(): boolean {
    return this.kind === 'transport' || this.kind === 'timeout';
  }
}

/** `M123456-abcdef` → `**********cdef`: all but the last 4 characters, all of a short value. */
export function maskSecret(value: string): string {
  return value.length > 8 ? `${'*'.repeat(value.length - 4)}${value.slice(-4)}` : '*'.repeat(value.length);
}

/** Replaces every occurrence of each secret in `text` by its mask. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join(maskSecret(secret));
  return out;
}
