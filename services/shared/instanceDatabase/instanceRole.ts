import { createHmac } from 'node:crypto';

/** Who an instance's ERP, restores and checks connect as: a role that owns only its database. */
export interface InstanceCredentials {
  user: string;
  password: string;
}

/**
 * Customer dumps and customer code run in instance databases, so nothing may connect there as a
 * superuser: each instance gets a NOSUPERUSER, NOCREATEDB, NOCREATEROLE role named like its
 * database. Its password is derived (HMAC-SHA256 under the platform's master key), so it needs no
 * storage of its own, and every step can set it again idempotently.
 */
export function instanceCredentials(masterKey: Buffer | string, database: string): InstanceCredentials {
  const password = createHmac('sha256', masterKey).update(`forja instance role\0${database}`).digest('base64url');
  return { user: database, password };
}

/** The role's attributes, stated in full on create and on every re-assertion (an earlier ALTER cannot linger). */
export const INSTANCE_ROLE_ATTRIBUTES = 'login nosuperuser nocreatedb nocreaterole noreplication nobypassrls inherit';

/** What a non-superuser admin (CREATEROLE) may state in an ALTER ROLE: not superuser, replication or bypassrls, even to turn them off. */
export const INSTANCE_ROLE_ALTERABLE_ATTRIBUTES = 'login nocreatedb nocreaterole inherit';
