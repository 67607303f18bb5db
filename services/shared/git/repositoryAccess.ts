import { lookup } from 'node:dns/promises';
import { realpath } from 'node:fs/promises';
import { addressProblem, gitAccessProblem, hostIsAddress, hostListedByName, localRepositoryProblem, type GitAccess } from './gitAccess.ts';
import { gitTarget } from './gitTarget.ts';
import { sshEndpoint } from './sshEndpoint.ts';
import { GitSourceError, maskCredentials, type GitOptions, type HostLookup } from './gitCommand.ts';

/** No local repositories, public hosts only: what git may read when nobody said more. */
export const NO_GIT_ACCESS: GitAccess = { fileRoots: [], allowHosts: [] };

const lookupAll: HostLookup = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Refuses (GitSourceError `invalid`, saying why) a repository git may not read, before git runs:
 * the control-plane checked the URL when it was given, but the settings may have changed since,
 * and only here can the real folder behind a local path, and the addresses behind a host name, be
 * seen. A name is resolved, never connected to. What git later resolves is not pinned: a name
 * whose DNS answer changes in between (rebinding) is not caught.
 */
export async function assertRepositoryAllowed(url: string, options: GitOptions): Promise<void> {
  const access = options.access ?? NO_GIT_ACCESS;
  const problem = gitAccessProblem(url, access);
  if (problem) throw new GitSourceError('invalid', problem);
  const target = gitTarget(url);
  if (target.kind === 'local') {
    // A link inside a listed folder may lead out of it; so may a listed folder itself (/tmp → /private/tmp).
    const real = await realpath(target.path).catch(() => undefined);
    if (real === undefined || real === target.path) return;
    const realRoots = await Promise.all(access.fileRoots.map((root) => realpath(root).catch(() => root)));
    if (localRepositoryProblem(real, { ...access, fileRoots: [...access.fileRoots, ...realRoots] })) {
      throw new GitSourceError('invalid', `${target.path} leads to ${real}, outside the folders local repositories may come from (FORJA_GIT_FILE_ROOTS)`);
    }
  } else if (target.kind === 'remote' && !hostIsAddress(target.host) && !hostListedByName(target.host, access)) {
    let addresses: string[];
    try {
      addresses = await (options.lookup ?? lookupAll)(target.host);
    } catch (error) {
      options.log?.write(`forja: cannot resolve ${target.host}: ${(error as Error).message}\n`);
      throw new GitSourceError('unreadable', `could not reach the repository ${maskCredentials(url)} (see the instance log)`);
    }
    for (const address of addresses) {
      const refused = addressProblem(address, access, target.host);
      if (!refused) continue;
      options.log?.write(`forja: ${target.host} resolves to ${address}\n`);
      throw new GitSourceError('invalid', refused);
    }
  }
}

/**
 * The same for a submodule's URL (as git resolved it against its parent), plus git's own rule: only
 * a local repository may have local submodules, or a remote one could read this machine's.
 */
export async function assertSubmoduleAllowed(url: string, topUrl: string, options: GitOptions): Promise<void> {
  const where = `submodule ${maskCredentials(url)} of ${maskCredentials(topUrl)}`;
  if (gitTarget(url).kind === 'local' && gitTarget(topUrl).kind !== 'local') {
    throw new GitSourceError('invalid', `${where}: only a local repository may have local submodules`);
  }
  try {
    await assertRepositoryAllowed(url, options);
  } catch (error) {
    if (error instanceof GitSourceError) throw new GitSourceError(error.kind, `${where}: ${error.message}`);
    throw error;
  }
}

/**
 * Hands an ssh repository's host and port to `options.ssh.checkHost` (pinning or comparing its host
 * key) once the access check has passed and before git contacts it; nothing for other URLs.
 */
export async function checkSshHost(url: string, options: GitOptions): Promise<void> {
  const endpoint = sshEndpoint(url);
  if (endpoint && options.ssh?.checkHost) await options.ssh.checkHost(endpoint);
}
