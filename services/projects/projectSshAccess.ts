import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import type { HostKey } from '#shared/git/hostKeys.ts';
import type { HostKeyBook, SshIdentity } from '#shared/git/sshSession.ts';
import type { SshKeySecrets } from '#shared/secrets/sshKeySecrets.ts';
import { projectDecider } from './domain/project.decider.ts';
import { projectStream, samePlace } from './domain/project.ts';

/** What git needs to reach a project's repositories over SSH: its keys and its known hosts. */
export interface ProjectSshAccess {
  gitRepo: string | null;
  /** The project's keys that still exist in the keyring, in the order they were added. */
  identities: SshIdentity[];
  /** Names of the project's keys deleted from the keyring since (the project page says so too). */
  deletedKeys: string[];
  /** The pinned host keys; a first contact's keys are recorded on the project's stream. */
  book: HostKeyBook;
}

/**
 * Reads the project's stream (not a read model: a key added a moment ago must be offered) and
 * opens its keys' secrets. `metadata` describes who or what pins a host key at first contact.
 */
export async function projectSshAccess(store: EventStore, secrets: SshKeySecrets, slug: string, metadata: () => EventMetadata): Promise<ProjectSshAccess> {
  const { state } = await aggregateStream(store, projectDecider, projectStream(slug));
  if (state.status !== 'live') return { gitRepo: null, identities: [], deletedKeys: [], book: emptyBook };
  const names = new Map<number, string>();
  const { events } = await store.readStream<{ type: string; data: { keyId?: number; name?: string } }>(projectStream(slug));
  for (const event of events) if (event.type === 'ProjectSshKeyAdded' && event.data.keyId !== undefined) names.set(event.data.keyId, event.data.name ?? `key ${event.data.keyId}`);
  const opened = await secrets.open(state.sshKeyIds);
  const present = new Set(opened.map((key) => key.keyId));
  let pins = state.hostKeys;
  const book: HostKeyBook = {
    pinned: (host, port) => pins.find((pin) => samePlace(pin, { host, port }))?.keys,
    async pin(host: string, port: number, keys: HostKey[]) {
      const result = await handleCommand(store, projectDecider, projectStream(slug), { type: 'PinHostKey', host, port, keys }, { metadata: metadata() });
      const after = result.aggregate.state;
      if (after.status === 'live') pins = after.hostKeys;
    },
  };
  return {
    gitRepo: state.gitRepo,
    identities: opened.map(({ keyId, privateKey }) => ({ name: names.get(keyId) ?? `key ${keyId}`, privateKey })),
    deletedKeys: state.sshKeyIds.filter((keyId) => !present.has(keyId)).map((keyId) => names.get(keyId) ?? `key ${keyId}`),
    book,
  };
}

const emptyBook: HostKeyBook = {
  pinned: () => undefined,
  pin: () => Promise.reject(new Error('the project does not exist')),
};
