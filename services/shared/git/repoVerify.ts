import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitEnv, GitSourceError, isLocalRepository, maskCredentials, operationSignal, runGit, type GitOptions, type GitResult } from './gitCommand.ts';
import { classifyRemoteFailure, remoteFailureMessage, type RemoteFailureKind } from './gitFailure.ts';
import { assertRepositoryAllowed, assertSubmoduleAllowed, checkSshHost } from './repositoryAccess.ts';
import { resolveSubmoduleUrl } from './submoduleUrl.ts';

export type RepositoryStatus = 'ok' | 'auth_failed' | 'host_key_changed' | 'not_found' | 'unreachable' | 'timeout';

export interface RepositoryCheck {
  url: string;
  /** Where the submodule sits in the main repository's work tree (`addons/lib/vendor/x` for a nested one); null for the main repository. */
  path: string | null;
  status: RepositoryStatus;
  /** The head of its default branch, when it could be read. */
  head: string | null;
  /** In plain words, with what to do next when it is not ok. */
  message: string;
}

export interface VerifyOptions extends GitOptions {
  /** Limit for one repository (ls-remote, then the shallow fetch that lists its submodules); default 60 s. */
  perRepositoryTimeoutMs?: number;
}

const MAX_DEPTH = 8;
const MAX_REPOSITORIES = 100;
const PER_REPOSITORY_TIMEOUT_MS = 60_000;

interface Node {
  url: string;
  path: string | null;
  /** The commit its parent records for it, whose .gitmodules lists its own submodules; null for the main repository (its default branch). */
  commit: string | null;
  /** What it is to the reader: `submodule addons/lib of <parent>`; undefined for the main repository. */
  where: string | undefined;
  depth: number;
}

/**
 * Whether git can read `url` and every submodule listed in `.gitmodules` at its default branch,
 * recursively (the commits the parents record), each URL passing the same access and host-key
 * checks as a build's. Each repository gets a row, a failed one too; `ok` only when all are ok.
 * What the remotes said goes to `options.log`, never into a message. Rejects only when the
 * caller's signal aborts it.
 */
export async function verifyRepositories(url: string, options: VerifyOptions): Promise<{ ok: boolean; repositories: RepositoryCheck[] }> {
  const overall = operationSignal(options);
  const scratch = await mkdtemp(join(tmpdir(), 'forja-verify-'));
  const rows: RepositoryCheck[] = [];
  const verifier: Verifier = { top: url, options, overall, scratch, rows };
  try {
    await verify(verifier, { url, path: null, commit: null, where: undefined, depth: 0 });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return { ok: rows.every((row) => row.status === 'ok'), repositories: rows };
}

interface Verifier {
  top: string;
  options: VerifyOptions;
  overall: AbortSignal;
  scratch: string;
  rows: RepositoryCheck[];
}

/** Checks one repository (its row goes in now, so parents come before their submodules), then its submodules. */
async function verify(verifier: Verifier, node: Node): Promise<void> {
  const row: RepositoryCheck = { url: maskCredentials(node.url), path: node.path, status: 'ok', head: null, message: '' };
  verifier.rows.push(row);
  const signal = AbortSignal.any([verifier.overall, AbortSignal.timeout(verifier.options.perRepositoryTimeoutMs ?? PER_REPOSITORY_TIMEOUT_MS)]);
  const git = gitFor(verifier, node, signal);
  let submodules: Node[] = [];
  try {
    await allowed(verifier, node);
    const remote = await git(undefined, ['ls-remote', '--symref', '--', node.url, 'HEAD']);
    const { branch, head } = defaultBranch(remote.stdout);
    row.head = head;
    if (!head) {
      row.message = 'readable, but it has no commits yet';
      return;
    }
    row.message = `readable; its default branch${branch ? ` ${branch}` : ''} is at ${head}`;
    submodules = await listSubmodules(verifier, node, git);
  } catch (error) {
    Object.assign(row, failure(error, verifier, node));
    row.message += '. Its submodules, if it has any, could not be listed';
    return;
  }
  if (submodules.length > 0 && node.depth >= MAX_DEPTH) {
    row.message += `. Its submodules are nested more than ${MAX_DEPTH} deep: a build would refuse them`;
    return;
  }
  for (const submodule of submodules) {
    if (verifier.rows.length >= MAX_REPOSITORIES) {
      row.message += `. Not all its submodules were checked: verification stops at ${MAX_REPOSITORIES} repositories`;
      return;
    }
    await verify(verifier, submodule);
  }
}

/** The same refusals as a build's: the access check (a refusal reads as unreachable), then the host key. */
async function allowed(verifier: Verifier, node: Node): Promise<void> {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (!node.url || node.url.startsWith('-') || /[\0-\x1f\x7f]/.test(node.url)) throw new Refusal(`not a usable repository URL: ${JSON.stringify(maskCredentials(node.url))}`);
  try {
    if (node.path === null) await assertRepositoryAllowed(node.url, verifier.options);
    else await assertSubmoduleAllowed(node.url, verifier.top, verifier.options);
  } catch (error) {
    if (error instanceof GitSourceError && error.kind === 'invalid') throw new Refusal(error.message);
    throw error;
  }
  await checkSshHost(node.url, verifier.options);
}

/** The platform may not read this URL: the reason is the message. */
class Refusal extends Error {}

type Git = (cwd: string | undefined, args: string[]) => Promise<GitResult>;

/** git for one repository's checks, under its own time limit, with the main repository's protocol rules. */
function gitFor(verifier: Verifier, node: Node, signal: AbortSignal): Git {
  const { options, top } = verifier;
  const env = gitEnv(top, options);
  const config = ['-c', 'http.followRedirects=false', ...(isLocalRepository(top) ? ['-c', 'protocol.file.allow=always'] : [])];
  return async (cwd, args) => {
    try {
      return await runGit([...config, ...args], { ...(cwd ? { cwd } : {}), env, signal, ...(options.log ? { log: options.log } : {}) });
    } catch (error) {
      // Only a stop asked by the caller ends the whole verification; a time limit is this repository's answer.
      if (error instanceof GitSourceError && error.kind === 'aborted') throw error;
      throw error instanceof GitSourceError && error.kind === 'timeout' ? error : new RemoteFailure(node, error);
    }
  };
}

/** git failed talking to the remote: only its kind is kept for the message. */
class RemoteFailure extends Error {
  readonly kind: RemoteFailureKind;
  constructor(node: Node, cause: unknown) {
    super(`git failed for ${maskCredentials(node.url)}`);
    this.kind = cause instanceof GitSourceError && cause.kind === 'failed' ? classifyRemoteFailure(cause.stderr) : 'unreadable';
  }
}

/** The status and message for what stopped the check of `node`. */
function failure(error: unknown, verifier: Verifier, node: Node): Pick<RepositoryCheck, 'status' | 'message'> {
  if (error instanceof Refusal) return { status: 'unreachable', message: `the platform may not read it: ${error.message}` };
  if (error instanceof MissingCommit) {
    return { status: 'not_found', message: `it answers, but not with commit ${node.commit ?? ''} that its parent records for ${node.path ?? ''}: was that commit pushed, or force-pushed away?` };
  }
  if (error instanceof RemoteFailure) {
    if (error.kind === 'unreadable') return { status: 'unreachable', message: `could not read it, and git's answer did not tell why${verifier.options.log ? ' (see the log)' : ''}` };
    return { status: error.kind, message: remoteFailureMessage(error.kind, node.url, node.where) };
  }
  if (error instanceof GitSourceError) {
    if (error.kind === 'aborted') throw error;
    if (error.kind === 'timeout') return { status: 'timeout', message: remoteFailureMessage('timeout', node.url, node.where) };
    if (error.kind === 'host_key_changed') return { status: 'host_key_changed', message: error.message };
    // The host check's own failures: no SSH server answered, a DNS failure, ssh-keyscan missing.
    return { status: 'unreachable', message: error.message };
  }
  throw error;
}

/** `ref: refs/heads/main\tHEAD` and `<sha>\tHEAD` from `ls-remote --symref … HEAD`. */
function defaultBranch(stdout: string): { branch: string | null; head: string | null } {
  let branch: string | null = null;
  let head: string | null = null;
  for (const line of stdout.split('\n')) {
    const symref = /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(line);
    if (symref) branch = symref[1]!;
    const sha = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\tHEAD$/.exec(line);
    if (sha) head = sha[1]!;
  }
  return { branch, head };
}

/**
 * The submodules recorded at the default branch's head (the main repository) or at the commit its parent records,
 * read from a shallow, blobless fetch into a scratch repository: only the trees and the one
 * .gitmodules blob come over.
 */
async function listSubmodules(verifier: Verifier, node: Node, git: Git): Promise<Node[]> {
  const repo = await mkdtemp(join(verifier.scratch, 'repo-'));
  try {
    await git(undefined, ['init', '-q', '--bare', repo]);
    await git(repo, ['remote', 'add', '--', 'origin', node.url]);
    await fetchCommit(node, repo, git);
    // The main repository's head may have moved since ls-remote: read what was fetched.
    const commit = node.commit ?? (await git(repo, ['rev-parse', 'FETCH_HEAD'])).stdout.trim();
    const listed = await git(repo, ['ls-tree', '-z', commit, '--', '.gitmodules']);
    if (!listed.stdout) return [];
    const entries = await git(repo, ['config', '-z', '--blob', `${commit}:.gitmodules`, '--get-regexp', '^submodule\\..+\\.(path|url)$']);
    const byName = new Map<string, { path?: string; url?: string }>();
    for (const entry of entries.stdout.split('\0')) {
      const match = /^submodule\.(.+)\.(path|url)\n([\s\S]*)$/.exec(entry);
      if (!match) continue;
      const submodule = byName.get(match[1]!) ?? {};
      submodule[match[2] as 'path' | 'url'] = match[3]!;
      byName.set(match[1]!, submodule);
    }
    const submodules: Node[] = [];
    for (const { path, url } of byName.values()) {
      if (!path || !url) continue;
      // git skips an entry without a gitlink at its path; so does a build.
      const gitlink = /^160000 commit ([0-9a-f]+)\t/.exec((await git(repo, ['ls-tree', '-z', commit, '--', path])).stdout);
      if (!gitlink) continue;
      submodules.push({
        url: resolveSubmoduleUrl(node.url, url),
        path: node.path === null ? path : `${node.path}/${path}`,
        commit: gitlink[1]!,
        where: `submodule ${node.path === null ? path : `${node.path}/${path}`} of ${maskCredentials(node.url)}`,
        depth: node.depth + 1,
      });
    }
    return submodules;
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}

/** The one commit, shallow and without blobs; a submodule's commit that its host does not hand out is not in it. */
async function fetchCommit(node: Node, repo: string, git: Git): Promise<void> {
  try {
    await git(repo, ['fetch', '-q', '--depth=1', '--filter=blob:none', '--no-tags', '--', 'origin', node.commit ?? 'HEAD']);
  } catch (error) {
    if (node.commit && error instanceof RemoteFailure && error.kind === 'unreadable') throw new MissingCommit();
    throw error;
  }
}

/** The repository answered, but not with the commit its parent records. */
class MissingCommit extends Error {}
