import { createHash } from 'node:crypto';
import type { ReadModel } from '#projections/readModel.ts';
import { findUserByEmail, type UserRow } from '#projections/users/users.ts';
import type { Role } from '#shared/auth/roles.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { DUMMY_HASH, hashPassword, verifyPassword } from '#shared/secrets/passwords.ts';
import type { PasswordStore } from '#shared/secrets/secrets.ts';
import { normalizeEmail, userIdFor, userStream, type UserSource } from './user.ts';
import { userDecider, type UserCommand } from './user.decider.ts';

export interface IdentityDeps {
  store: EventStore;
  passwords: PasswordStore;
  /** The read model (schema `read_model`). */
  readModel: ReadModel;
}

/**
 * `fingerprint` names the stored hash the password matched: a new password is a new hash (a new
 * salt), so a remembered check that kept the fingerprint is stale as soon as the password changes.
 */
export type AuthenticationResult = { ok: true; user: UserRow; fingerprint: string } | { ok: false; reason: 'unknown' | 'wrong_password' | 'inactive' };

const fingerprintOf = (hash: string) => createHash('sha256').update(hash).digest('base64url');

/** The write side of identity (used by the CLI, npm start's bootstrap and the control-plane) and sign-in. */
export function identityService({ store, passwords, readModel }: IdentityDeps) {
  const run = (userId: string, command: UserCommand, metadata: EventMetadata) => handleCommand(store, userDecider, userStream(userId), command, { metadata });

  return {
    /** Registers a user; the password (when given) is hashed into `secrets` before the event. */
    async register(input: { email: string; role: Role; source: UserSource; password?: string }, metadata: EventMetadata) {
      const email = normalizeEmail(input.email);
      const userId = userIdFor(email);
      const result = await run(userId, { type: 'RegisterUser', userId, email, role: input.role, source: input.source }, metadata);
      if (input.password !== undefined) {
        await passwords.save(userId, await hashPassword(input.password));
        await run(userId, { type: 'RecordPasswordChange' }, metadata);
      }
      return { userId, email, lastGlobalPosition: result.lastGlobalPosition };
    },

    async setPassword(email: string, password: string, metadata: EventMetadata) {
      const userId = userIdFor(email);
      await run(userId, { type: 'RecordPasswordChange' }, metadata);
      await passwords.save(userId, await hashPassword(password));
    },

    changeRole: (email: string, role: Role, metadata: EventMetadata) => run(userIdFor(email), { type: 'ChangeUserRole', role }, metadata),
    deactivate: (email: string, metadata: EventMetadata) => run(userIdFor(email), { type: 'DeactivateUser' }, metadata),
    reactivate: (email: string, metadata: EventMetadata) => run(userIdFor(email), { type: 'ReactivateUser' }, metadata),

    /**
     * Checks an e-mail and password. An unknown e-mail costs the same scrypt work as a known one,
     * so response time does not reveal which accounts exist.
     */
    async authenticate(email: string, password: string): Promise<AuthenticationResult> {
      const user = await findUserByEmail(readModel, email);
      const hash = user ? await passwords.find(user.user_id) : undefined;
      const matches = await verifyPassword(password, hash ?? DUMMY_HASH);
      if (!user || !hash) return { ok: false, reason: 'unknown' };
      if (!matches) return { ok: false, reason: 'wrong_password' };
      if (!user.active) return { ok: false, reason: 'inactive' };
      return { ok: true, user, fingerprint: fingerprintOf(hash) };
    },

    /** The fingerprint of the user's stored password hash now (undefined: none), to tell a remembered check still holds. */
    async passwordFingerprint(userId: string): Promise<string | undefined> {
      const hash = await passwords.find(userId);
      return hash === undefined ? undefined : fingerprintOf(hash);
    },
  };
}

export type IdentityService = ReturnType<typeof identityService>;
