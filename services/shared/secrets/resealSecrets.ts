import type { Kysely } from 'kysely';
import type { SecretBox } from './secretBox.ts';
import type { SecretsDb } from './secrets.ts';

/** How many secrets were re-sealed, per table. */
export interface ResealCount {
  userPasswords: number;
  sshKeys: number;
}

/**
 * Opens every secret of schema `secrets` with `from` and seals it again with `to`, in one
 * transaction with the rows locked: either every secret is under the new key or none is. A row
 * that does not open with `from` (the wrong current key) aborts the whole rotation.
 */
export async function resealSecrets(db: Kysely<unknown>, from: SecretBox, to: SecretBox): Promise<ResealCount> {
  const secrets = db.withSchema('secrets') as unknown as Kysely<SecretsDb>;
  return secrets.transaction().execute(async (trx) => {
    const passwords = await trx.selectFrom('user_passwords').select(['user_id', 'sealed_hash']).forUpdate().execute();
    for (const row of passwords) {
      const context = `user_passwords:${row.user_id}`;
      await trx.updateTable('user_passwords').set({ sealed_hash: to.seal(openOrExplain(from, row.sealed_hash, context), context) }).where('user_id', '=', row.user_id).execute();
    }
    const keys = await trx.selectFrom('ssh_keys').select(['key_id', 'sealed_key']).forUpdate().execute();
    for (const row of keys) {
      const context = `ssh_keys:${row.key_id}`;
      await trx.updateTable('ssh_keys').set({ sealed_key: to.seal(openOrExplain(from, row.sealed_key, context), context) }).where('key_id', '=', row.key_id).execute();
    }
    return { userPasswords: passwords.length, sshKeys: keys.length };
  });
}

function openOrExplain(box: SecretBox, sealed: string, context: string): string {
  try {
    return box.open(sealed, context);
  } catch {
    throw new Error(`the current master key does not open ${context}: nothing was changed (is FORJA_MASTER_KEY the key the secrets were sealed with?)`);
  }
}
