import { DomainError } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import type { GitAccess } from '#shared/git/gitAccess.ts';
import { verifyRepositories, type RepositoryCheck } from '#shared/git/repoVerify.ts';
import { withSshSession } from '#shared/git/sshSession.ts';
import type { SshKeySecrets } from '#shared/secrets/sshKeySecrets.ts';
import { projectDecider } from '#services/projects/domain/project.decider.ts';
import { projectStream } from '#services/projects/domain/project.ts';
import { projectSshAccess } from '#services/projects/projectSshAccess.ts';
import type { Keyring } from '../sshKeys/keyring.ts';

/** How long a whole verification may take: every repository and submodule, one after another. */
const VERIFY_TIMEOUT_MS = 120_000;
/** How long one repository may take to answer ls-remote (or the shallow fetch of its .gitmodules). */
const PER_REPOSITORY_TIMEOUT_MS = 30_000;

export interface VerifyResult {
  ok: boolean;
  repositories: RepositoryCheck[];
  keys: string[];
  deletedKeys: string[];
}

/** A project's SSH keys and host keys, and the verification of its repositories with them. */
export function projectKeys(store: EventStore, keyring: Keyring, secrets: SshKeySecrets, gitAccess: GitAccess) {
  const run = (slug: string, command: Parameters<typeof projectDecider.decide>[0], metadata: EventMetadata) => handleCommand(store, projectDecider, projectStream(slug), command, { metadata });
  return {
    async addKey(slug: string, keyId: number, metadata: EventMetadata) {
      const key = await keyring.liveKey(keyId);
      return run(slug, { type: 'AddProjectSshKey', key: { keyId, name: key.name, fingerprint: key.fingerprint } }, metadata);
    },
    removeKey: (slug: string, keyId: number, metadata: EventMetadata) => run(slug, { type: 'RemoveProjectSshKey', keyId }, metadata),
    forgetHostKey: (slug: string, host: string, port: number, metadata: EventMetadata) => run(slug, { type: 'ForgetHostKey', host, port }, metadata),
    /**
     * `git ls-remote` of the repository and of its submodules, recursively, with the project's keys
     * and known hosts; a first contact pins the server's host key (an event on the project, by the
     * user who asked).
     */
    async verify(slug: string, metadata: EventMetadata): Promise<VerifyResult> {
      const access = await projectSshAccess(store, secrets, slug, () => ({ ...metadata, at: new Date().toISOString() }));
      if (!access.gitRepo) throw new DomainError('the project has no repository to verify: set one first', 'invalid');
      const gitRepo = access.gitRepo;
      const signal = AbortSignal.timeout(VERIFY_TIMEOUT_MS);
      const result = await withSshSession(access.identities, access.book, (ssh) => verifyRepositories(gitRepo, { ssh, access: gitAccess, signal, perRepositoryTimeoutMs: PER_REPOSITORY_TIMEOUT_MS }), { signal });
      return { ...result, keys: access.identities.map((identity) => identity.name), deletedKeys: access.deletedKeys };
    },
  };
}

export type ProjectKeys = ReturnType<typeof projectKeys>;
