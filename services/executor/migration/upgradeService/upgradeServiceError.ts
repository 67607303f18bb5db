/**
 * One refusal in the platform's `failures` list: always `reason` (`CONTRACT:NOT_FOUND`,
 * `TARGET:INVALID`) and a human `message`; sometimes the faulty `value` or `code` and the
 * `expected` values.
 */
export interface PlatformFailure {
  reason: string;
  message: string;
  value?: unknown;
  code?: unknown;
  expected?: unknown[];
}

/** Where a request stands on the platform: the executor keeps it as the step's facts. */
export interface UpgradeRequestRef {
  requestId: string;
  /** The platform's private key for the request: whoever holds it can read the dump. */
  key: string;
}

/**
 * - `refused`: the platform answered with `failures` (wrong contract, aim, version…);
 * - `transport`: no usable answer (connection dropped, timeout, HTTP 5xx);
 * - `protocol`: an answer Forja does not understand;
 * - `failed` / `cancelled`: the platform ended the request so;
 * - `timeout`: the platform was still working when the run stopped waiting.
 */
export type UpgradeErrorKind = 'refused' | 'transport' | 'protocol' | 'failed' | 'cancelled' | 'timeout';

export interface UpgradeErrorDetails {
  failures?: PlatformFailure[];
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

/** The failures with every secret masked, whatever field the platform echoed it in. */
export function redactFailures(failures: PlatformFailure[], secrets: readonly (string | undefined)[]): PlatformFailure[] {
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return redact(value, secrets);
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, walk(item)]));
    return value;
  };
  return walk(failures) as PlatformFailure[];
}

/** `Can not find contract ****cdef (CONTRACT:NOT_FOUND)`, with the expected values when given. */
export function describeFailures(failures: PlatformFailure[]): string {
  return failures
    .map((failure) => {
      const expected = Array.isArray(failure.expected) && failure.expected.length > 0 ? `; expected ${failure.expected.map(String).join(', ')}` : '';
      return `${failure.message} (${failure.reason}${expected})`;
    })
    .join('; ');
}
