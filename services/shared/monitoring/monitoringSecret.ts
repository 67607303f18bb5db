import { createHmac, timingSafeEqual } from 'node:crypto';

/** The one user of Prometheus' and its exporters' HTTP Basic auth. */
export const MONITORING_USER = 'forja';

/**
 * The password Prometheus and its exporters ask of every request: tenants' code runs on this
 * machine, and loopback alone would let it read every instance's metrics. Derived (HMAC-SHA256
 * under the master key, as instanceRole.ts derives role passwords), so web and the monitoring
 * process share it without storing it anywhere.
 */
export function monitoringSecret(masterKey: Buffer | string): string {
  return createHmac('sha256', masterKey).update('forja monitoring basic auth').digest('base64url');
}

/** The `Authorization` header value whoever talks to Prometheus or its exporters sends. */
export function monitoringAuthorization(masterKey: Buffer | string): string {
  return `Basic ${Buffer.from(`${MONITORING_USER}:${monitoringSecret(masterKey)}`).toString('base64')}`;
}

/** Whether a request's `Authorization` header is `expected`, compared in constant time. */
export function isMonitoringAuthorization(header: string | undefined, expected: string): boolean {
  const given = Buffer.from(header ?? '');
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
