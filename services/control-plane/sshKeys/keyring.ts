import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { SshKeyNameTakenError, type SshKeySecrets } from '#shared/secrets/sshKeySecrets.ts';
import { generateKey, readPastedKey, SshKeyMaterialError, type SshKeyMaterial, type SshKeyType } from '#shared/ssh/keyMaterial.ts';
import { sshKeyDecider } from '#services/sshKeys/domain/sshKey.decider.ts';
import { keyNameProblem, sshKeyStream, type SshKeyFacts } from '#services/sshKeys/domain/sshKey.ts';

/** What an admin sends: a name, and either `generate` or a pasted private key (with its passphrase). */
export interface KeyringInput {
  name: string;
  generate?: boolean;
  keyType?: SshKeyType;
  privateKey?: string;
  passphrase?: string;
}

/** A refused field of a new key: a 422 naming it. The message never quotes a pasted key. */
export class KeyInputError extends DomainError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message, 'invalid');
  }
}

/**
 * The shared keyring: keys are sealed in schema `secrets` (which gives them their integer id) and
 * event-sourced on `sshKey-<id>` with what may be shown of them.
 */
export function keyring(store: EventStore, secrets: SshKeySecrets) {
  return {
    async create(input: KeyringInput, metadata: EventMetadata): Promise<{ key: SshKeyFacts; lastGlobalPosition: number | undefined }> {
      const name = input.name.trim().replace(/\s+/g, ' ');
      const problem = keyNameProblem(name);
      if (problem) throw new KeyInputError('name', problem);
      const material = await materialOf(input, name);
      let keyId: number;
      try {
        keyId = await secrets.add(name, material.privateKey);
      } catch (error) {
        if (error instanceof SshKeyNameTakenError) throw new KeyInputError('name', `a key named ${name} exists already: choose another name`);
        throw error;
      }
      const key: SshKeyFacts = { keyId, name, keyType: material.keyType, bits: material.bits, fingerprint: material.fingerprint, publicKey: material.publicKey, origin: input.generate ? 'generated' : 'pasted' };
      try {
        const result = await handleCommand(store, sshKeyDecider, sshKeyStream(keyId), { type: 'AddSshKey', key }, { metadata });
        return { key, lastGlobalPosition: result.lastGlobalPosition };
      } catch (error) {
        // No event, no key: the sealed secret must not outlive a failed append.
        await secrets.shred(keyId);
        throw error;
      }
    },
    /** Deletes the key: its secret first (crypto-shredding), then the event; projects that used it are left without it. */
    async delete(keyId: number, metadata: EventMetadata) {
      const { state } = await aggregateStream(store, sshKeyDecider, sshKeyStream(keyId));
      if (state.status !== 'live') throw new DomainError(`no key ${keyId} in the keyring`, 'not_found');
      await secrets.shred(keyId);
      return handleCommand(store, sshKeyDecider, sshKeyStream(keyId), { type: 'DeleteSshKey' }, { metadata });
    },
    /** The key as its stream says, for a project about to take it; a deleted or unknown key is a 404. */
    async liveKey(keyId: number): Promise<SshKeyFacts> {
      const { state } = await aggregateStream(store, sshKeyDecider, sshKeyStream(keyId));
      if (state.status !== 'live') throw new DomainError(`no key ${keyId} in the keyring`, 'not_found');
      return state.key;
    },
  };
}

export type Keyring = ReturnType<typeof keyring>;

async function materialOf(input: KeyringInput, name: string): Promise<SshKeyMaterial> {
  const comment = `forja:${name.replace(/[^\w.@-]+/g, '-')}`;
  const pasted = input.privateKey?.trim() ? input.privateKey : undefined;
  if (input.generate && pasted) throw new KeyInputError('private_key', 'either generate a key or paste one, not both');
  if (input.generate) return generateKey(input.keyType ?? 'ed25519', comment);
  if (input.keyType) throw new KeyInputError('key_type', 'the key type is chosen for a generated key only; a pasted key has its own');
  if (!pasted) throw new KeyInputError('private_key', 'paste a private key, or generate one');
  try {
    return await readPastedKey(pasted, input.passphrase || undefined, comment);
  } catch (error) {
    if (error instanceof SshKeyMaterialError) throw new KeyInputError(/passphrase/.test(error.message) ? 'passphrase' : 'private_key', error.message);
    throw error;
  }
}
