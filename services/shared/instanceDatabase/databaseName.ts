import { createHash } from 'node:crypto';

/** PostgreSQL silently truncates longer identifiers, so two long names could address one database. */
const MAX_IDENTIFIER_BYTES = 63;
const SLUG = /^[a-z0-9-]{1,64}$/;
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
/** Databases no operation here may recreate or drop. */
const RESERVED = new Set(['postgres', 'template0', 'template1']);

/**
 * An instance's database: `forja_<slug>` with `-` as `_`. Slugs of up to 57 characters map
 * one-to-one; a longer one keeps its head and ends in a hash of the whole slug, staying within
 * PostgreSQL's 63-byte identifier limit.
 */
export function databaseName(slug: string): string {
  if (!SLUG.test(slug)) throw new Error(`'${slug}' is not an instance slug ([a-z0-9-], at most 64 characters)`);
  const name = `forja_${slug.replaceAll('-', '_')}`;
  if (name.length <= MAX_IDENTIFIER_BYTES) return name;
  const hash = createHash('sha256').update(slug).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_IDENTIFIER_BYTES - hash.length - 1)}_${hash}`;
}

/**
 * Refuses a name an operation must not touch: too long (it would be truncated), holding
 * characters a tool could read as an option or connection string, or one of the server's own.
 */
export function checkedDatabaseName(name: string, maintenanceDatabase: string): string {
  if (!NAME.test(name) || Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES) {
    throw new Error(`'${name}' is not a usable database name (letters, digits, _ and -, at most ${MAX_IDENTIFIER_BYTES} bytes)`);
  }
  if (RESERVED.has(name) || name === maintenanceDatabase) throw new Error(`database '${name}' belongs to the server, not to an instance: refused`);
  return name;
}

/**
 * `name` followed by `suffix` (a snapshot's `_ck`), within PostgreSQL's 63-byte limit: when it
 * would not fit, `name`'s head is kept and a hash of the whole name added, so two long names
 * never share a suffixed one.
 */
export function suffixedName(name: string, suffix: string): string {
  const whole = `${name}${suffix}`;
  if (Buffer.byteLength(whole) <= MAX_IDENTIFIER_BYTES) return whole;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_IDENTIFIER_BYTES - suffix.length - hash.length - 1)}_${hash}${suffix}`;
}
