import type { Kysely } from 'kysely';
import type { SecretBox } from './secretBox.ts';
import type { SecretsDb } from './secrets.ts';

/** Another key has this name (names compare case- and space-insensitively). */
export class SshKeyNameTakenError extends Error {
  override readonly name = 'SshKeyNameTakenError';
  constructor(readonly keyName: string) {
    super(`a key named ${keyName} exists already`);
  }
}

/** How key names compare: "Deploy  Key" is "deploy key". */
export const foldKeyName = (name: string): string => name.trim().replace(/\s+/g, ' ').toLocaleLowerCase('es');

const context = (keyId: number) => `ssh_keys:${keyId}`;

/**
 * SSH private keys in schema `secrets`, sealed under the master key with the key id as
 * additional data. The row comes first and gives the key its id; the `sshKey-<id>` stream follows.
 */
export function sshKeySecrets(db: Kysely<unknown>, box: SecretBox) {
  const secrets = db.withSchema('secrets') as unknown as Kysely<SecretsDb>;
  return {
    /** Stores a new key under the next id; throws SshKeyNameTakenError for a name in use. */
    async add(name: string, privateKey: string): Promise<number> {
      return secrets.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('ssh_keys')
          .values({ name_folded: foldKeyName(name), sealed_key: 'pending' })
          .onConflict((oc) => oc.column('name_folded').doNothing())
          .returning('key_id')
          .executeTakeFirst();
        if (!row) throw new SshKeyNameTakenError(name.trim());
        // Sealed with its own id bound in, which only the insert knows.
        await trx.updateTable('ssh_keys').set({ sealed_key: box.seal(privateKey, context(row.key_id)) }).where('key_id', '=', row.key_id).execute();
        return row.key_id;
      });
    },
    /** The private keys of `keyIds` that still exist, in the order asked; a deleted key is simply absent. */
    async open(keyIds: readonly number[]): Promise<Array<{ keyId: number; privateKey: string }>> {
      if (keyIds.length === 0) return [];
      const rows = await secrets.selectFrom('ssh_keys').select(['key_id', 'sealed_key']).where('key_id', 'in', [...keyIds]).execute();
      const byId = new Map(rows.map((row) => [row.key_id, row.sealed_key]));
      return keyIds.flatMap((keyId) => {
        const sealed = byId.get(keyId);
        return sealed ? [{ keyId, privateKey: box.open(sealed, context(keyId)) }] : [];
      });
    },
    /** Crypto-shredding: the sealed key is gone; the name is free again. */
    async shred(keyId: number): Promise<void> {
      await secrets.deleteFrom('ssh_keys').where('key_id', '=', keyId).execute();
    },
  };
}

export type SshKeySecrets = ReturnType<typeof sshKeySecrets>;
