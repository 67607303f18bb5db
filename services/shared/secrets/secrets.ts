import type { Generated, Kysely } from 'kysely';
import { migrateSchema } from '../migrations.ts';
import * as userPasswords from './migrations/20261122_0001_user_passwords.ts';
import * as sshKeys from './migrations/20261123_0002_ssh_keys.ts';
import type { SecretBox } from './secretBox.ts';

export interface SecretsDb {
  user_passwords: { user_id: string; sealed_hash: string; updated_at: Date };
  ssh_keys: { key_id: Generated<number>; name_folded: string; sealed_key: string; created_at: Generated<Date> };
}

export async function migrateSecrets(db: Kysely<unknown>): Promise<void> {
  await migrateSchema(db, 'secrets', { '20261122_0001_user_passwords': userPasswords, '20261123_0002_ssh_keys': sshKeys });
}

/** Schema `secrets`: password hashes, sealed under the master key (SSH private keys: sshKeySecrets.ts). */
export function passwordStore(db: Kysely<unknown>, box: SecretBox) {
  const secrets = db.withSchema('secrets') as unknown as Kysely<SecretsDb>;
  return {
    async save(userId: string, hash: string): Promise<void> {
      const sealed = box.seal(hash, `user_passwords:${userId}`);
      await secrets
        .insertInto('user_passwords')
        .values({ user_id: userId, sealed_hash: sealed, updated_at: new Date() })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ sealed_hash: sealed, updated_at: new Date() }))
        .execute();
    },
    async find(userId: string): Promise<string | undefined> {
      const row = await secrets.selectFrom('user_passwords').select('sealed_hash').where('user_id', '=', userId).executeTakeFirst();
      return row ? box.open(row.sealed_hash, `user_passwords:${userId}`) : undefined;
    },
  };
}

export type PasswordStore = ReturnType<typeof passwordStore>;
