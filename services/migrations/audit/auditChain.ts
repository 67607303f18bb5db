import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * The hash chain of a migration's exported history (one JSON line per event). Each line is the
 * event as recorded plus `prev_hash` and `hash`, where
 * `hash = sha256_hex(prev_hash + JCS(event))`: JCS is RFC 8785's canonical JSON of the line
 * without `prev_hash` and `hash`, so the hash does not depend on key order or spacing, and an
 * auditor can recompute it in any language. The first line's `prev_hash` is 64 zeros.
 */

export const GENESIS_HASH = '0'.repeat(64);

/** What a line says about its event: everything the hash covers. */
export interface AuditEvent {
  stream: string;
  /** 1-based position in the stream. */
  version: number;
  /** Position in the store's global feed: increasing along the stream. */
  global_position: number;
  id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  /** ISO 8601 time the store recorded it (`metadata.at` is when it was decided). */
  recorded_at: string;
}

export interface AuditLine extends AuditEvent {
  prev_hash: string;
  hash: string;
}

/** `sha256_hex(prevHash + JCS(event))`, over the UTF-8 bytes. */
export function chainHash(prevHash: string, event: AuditEvent): string {
  const canonical = canonicalize(event);
  if (canonical === undefined) throw new TypeError('an audit event must serialize to JSON');
  return createHash('sha256').update(prevHash + canonical, 'utf8').digest('hex');
}

/** The events of one stream, in order, chained from the genesis hash. */
export function chainEvents(events: readonly AuditEvent[]): AuditLine[] {
  let prev = GENESIS_HASH;
  return events.map((event) => {
    const hash = chainHash(prev, event);
    const line = { ...event, prev_hash: prev, hash };
    prev = hash;
    return line;
  });
}

/** The line without its links: what its hash covers. */
export function eventOfLine(line: AuditLine): AuditEvent {
  const { prev_hash: _prev, hash: _hash, ...event } = line;
  return event;
}
