import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { GitAccess } from '#shared/git/gitAccess.ts';
import { checkoutCommit, resolveBranchHead, type GitOptions } from '#shared/git/gitSource.ts';
import { withSshSession } from '#shared/git/sshSession.ts';
import type { SshKeySecrets } from '#shared/secrets/sshKeySecrets.ts';
import { projectSshAccess } from '#services/projects/projectSshAccess.ts';
import type { SourceControl } from '../jobs/stepEnvironment.ts';

export interface ProjectSourceDeps {
  store: EventStore;
  secrets: SshKeySecrets;
  access: GitAccess;
}

/**
 * git for an instance of `project`: every operation runs in its own SSH session with the
 * project's keys (written 0600 to a private folder removed after the step) and its pinned host
 * keys; a first contact pins the server's keys on the project, by the platform.
 */
export function projectSource(deps: ProjectSourceDeps, project: string, log: Writable, signal: AbortSignal): SourceControl {
  const withProjectGit = async <T>(operation: (options: GitOptions) => Promise<T>): Promise<T> => {
    const access = await projectSshAccess(deps.store, deps.secrets, project, () => {
      const id = randomUUID();
      return { correlationId: id, causationId: id, actor: 'system', at: new Date().toISOString() };
    });
    if (access.deletedKeys.length > 0) log.write(`forja: keys deleted from the keyring are not offered: ${access.deletedKeys.join(', ')}\n`);
    return withSshSession(access.identities, access.book, (ssh) => operation({ log, access: deps.access, signal, ssh }), { signal });
  };
  return {
    resolveBranchHead: (repo, branch) => withProjectGit((options) => resolveBranchHead(repo, branch, options)),
    checkout: (repo, branch, commit, dir) => withProjectGit((options) => checkoutCommit(repo, branch, commit, dir, options)),
  };
}
