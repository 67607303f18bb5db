import { mkdir, realpath, rm, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { gitEnv, GitSourceError, isLocalRepository, maskCredentials, operationSignal, runGit, type GitOptions, type GitResult } from './gitCommand.ts';
import { classifyRemoteFailure, remoteFailure } from './gitFailure.ts';
import { assertRepositoryAllowed, assertSubmoduleAllowed, checkSshHost } from './repositoryAccess.ts';

export { GitSourceError, type GitOptions, type GitSourceErrorKind, type SshOptions } from './gitCommand.ts';

/** The commit sha `refs/heads/<branch>` of `repoUrl` points at now. */
export async function resolveBranchHead(repoUrl: string, branch: string, options: GitOptions = {}): Promise<string> {
  checkUrl(repoUrl);
  checkBranch(branch);
  await assertRepositoryAllowed(repoUrl, options);
  await checkSshHost(repoUrl, options);
  const git = gitIn(repoUrl, options, operationSignal(options))(undefined);
  const ref = `refs/heads/${branch}`;
  // ls-remote matches patterns against the ends of ref names: keep only the exact ref.
  const result = await readRemote(repoUrl, () => git(['ls-remote', '--exit-code', '--', repoUrl, ref], [2]));
  const sha = result.stdout
    .split('\n')
    .map((line) => line.split('\t'))
    .find(([, name]) => name === ref)?.[0];
  if (!sha) throw new GitSourceError('branch_not_found', `branch ${branch} not found in ${maskCredentials(repoUrl)}`);
  return sha;
}

/**
 * Makes `dir` a work tree of `repoUrl` at `commit` (of `branch`), submodules included, and
 * returns the commit. Safe to run again after an interruption: a work tree of the same origin is
 * fetched and forced to the commit (untracked files removed); anything else at `dir` — nothing,
 * an empty folder, a half-made clone, another repository — is removed first. The commit is
 * checked out detached.
 */
export async function checkoutCommit(repoUrl: string, branch: string, commit: string, dir: string, options: GitOptions = {}): Promise<string> {
  checkUrl(repoUrl);
  checkBranch(branch);
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) throw new GitSourceError('invalid', `not a full commit sha: ${commit}`);
  if (!isAbsolute(dir) || resolve(dir) === '/') throw new GitSourceError('invalid', `the checkout folder must be an absolute path below /: ${dir}`);
  await assertRepositoryAllowed(repoUrl, options);
  await checkSshHost(repoUrl, options);
  const gitAt = gitIn(repoUrl, options, operationSignal(options));
  const git = gitAt(dir);
  const move = () => moveTo(repoUrl, branch, commit, dir, gitAt, options);
  if (await isWorkTreeOf(dir, repoUrl, git)) {
    try {
      return await move();
    } catch (error) {
      if (!(error instanceof GitSourceError) || !['failed', 'unreadable', 'unreachable'].includes(error.kind)) throw error;
      options.log?.write(`reusing ${dir} failed (${error.message}); checking out afresh\n`);
    }
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await git(['init', '-q']);
  await git(['remote', 'add', '--', 'origin', repoUrl]);
  return move();
}

type Git = (args: string[], allowExitCodes?: number[]) => Promise<GitResult>;
/** git in a folder (or none), for one operation on one repository. */
type GitAt = (cwd: string | undefined) => Git;

function gitIn(repoUrl: string, options: GitOptions, signal: AbortSignal): GitAt {
  const env = gitEnv(repoUrl, options);
  // Since git 2.38.1 submodules may not use file:// unless told; only a local repository may.
  // A redirect is not followed: it could lead to an address the access check would refuse.
  const config = ['-c', 'http.followRedirects=false', ...(isLocalRepository(repoUrl) ? ['-c', 'protocol.file.allow=always'] : [])];
  return (cwd) => (args, allowExitCodes) =>
    runGit([...config, ...args], { ...(cwd ? { cwd } : {}), env, signal, ...(options.log ? { log: options.log } : {}), ...(allowExitCodes ? { allowExitCodes } : {}) });
}

async function moveTo(repoUrl: string, branch: string, commit: string, dir: string, gitAt: GitAt, options: GitOptions): Promise<string> {
  const git = gitAt(dir);
  const ref = `refs/heads/${branch}`;
  await readRemote(repoUrl, () => git(['fetch', '--no-tags', '--', 'origin', `+${ref}:refs/remotes/origin/${branch}`]), branch);
  if (!(await hasCommit(commit, git))) {
    // The branch moved past it (force-push, deleted history); the host may still hand it out by sha.
    await git(['fetch', '--no-tags', '--', 'origin', commit]).catch(() => undefined);
    if (!(await hasCommit(commit, git))) {
      throw new GitSourceError('commit_missing', `commit ${commit} is not on branch ${branch} of ${maskCredentials(repoUrl)} any more (was the branch force-pushed?)`);
    }
  }
  await git(['checkout', '-f', '-q', '--detach', commit, '--']);
  await git(['clean', '-ffdxq']);
  await checkoutSubmodules(dir, repoUrl, gitAt, options);
  const head = (await git(['rev-parse', 'HEAD'])).stdout.trim();
  if (head !== commit) throw new GitSourceError('failed', `checked out ${head} instead of ${commit}`);
  return head;
}

async function hasCommit(commit: string, git: Git): Promise<boolean> {
  return (await git(['cat-file', '-e', `${commit}^{commit}`], [1, 128])).exitCode === 0;
}

const MAX_SUBMODULE_DEPTH = 8;

/**
 * Checks out the submodules of the work tree at `dir`, level by level rather than with git's
 * `--recursive`, so that every submodule's URL (as git resolved it against its parent) passes the
 * same access check (and host-key check) as the repository before git fetches it, and one by one,
 * so that a failure names the submodule.
 */
async function checkoutSubmodules(dir: string, repoUrl: string, gitAt: GitAt, options: GitOptions, depth = 0): Promise<void> {
  if (!(await exists(join(dir, '.gitmodules')))) return;
  if (depth >= MAX_SUBMODULE_DEPTH) throw new GitSourceError('invalid', `submodules of ${maskCredentials(repoUrl)} are nested more than ${MAX_SUBMODULE_DEPTH} deep`);
  const git = gitAt(dir);
  await git(['submodule', 'sync', '-q']);
  await git(['submodule', 'init', '-q']);
  const paths = configEntries(await git(['config', '-z', '--file', '.gitmodules', '--get-regexp', '^submodule\\..+\\.path$'], [1]));
  const submodules: Array<{ path: string; url: string }> = [];
  for (const { key, value } of paths) {
    const name = key.slice('submodule.'.length, -'.path'.length);
    const url = (await git(['config', '--local', '--get', `submodule.${name}.url`], [1])).stdout.trim();
    // git skips an entry without a gitlink at its path; naming it to `submodule update` would fail.
    if (!url || !(await git(['ls-files', '-z', '--stage', '--', value])).stdout.startsWith('160000 ')) continue;
    await assertSubmoduleAllowed(url, repoUrl, options);
    await checkSshHost(url, options);
    submodules.push({ path: value, url });
  }
  for (const { path, url } of submodules) {
    await readRemote(url, () => git(['submodule', 'update', '--force', '-q', '--', path]), undefined, `submodule ${path} of ${maskCredentials(repoUrl)}`);
  }
  for (const { value } of paths) {
    const submodule = resolve(dir, value);
    if (submodule.startsWith(`${dir}/`) && (await exists(join(submodule, '.git')))) await checkoutSubmodules(submodule, repoUrl, gitAt, options, depth + 1);
  }
}

/** `git config -z --get-regexp` output: `key\nvalue\0` per entry (names and paths may hold spaces). */
function configEntries(result: GitResult): Array<{ key: string; value: string }> {
  return result.stdout
    .split('\0')
    .filter((entry) => entry.includes('\n'))
    .map((entry) => ({ key: entry.slice(0, entry.indexOf('\n')), value: entry.slice(entry.indexOf('\n') + 1) }));
}

const exists = (path: string) => stat(path).then(() => true, () => false);

/**
 * Turns git's failure to talk to the remote into `branch_not_found`, or the kind of failure
 * (gitFailure.ts) in plain words and nothing more: what git heard from the other end (a refused
 * port, a service's banner) would let whoever sets a URL probe what the executor can reach. git's
 * own words are in the instance log, where runGit wrote them.
 */
async function readRemote(repoUrl: string, call: () => Promise<GitResult>, branch?: string, where?: string): Promise<GitResult> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof GitSourceError) || error.kind !== 'failed') throw error;
    const { stderr } = error;
    if (branch && /couldn't find remote ref/i.test(stderr)) throw new GitSourceError('branch_not_found', `branch ${branch} not found in ${maskCredentials(repoUrl)}`);
    throw remoteFailure(classifyRemoteFailure(stderr), repoUrl, where, stderr);
  }
}

/** True when `dir` is the top of a work tree whose `origin` is `repoUrl` (not a folder inside some other repository). */
async function isWorkTreeOf(dir: string, repoUrl: string, git: Git): Promise<boolean> {
  try {
    await stat(join(dir, '.git'));
    const top = await git(['rev-parse', '--show-toplevel']);
    if ((await realpath(top.stdout.trim())) !== (await realpath(dir))) return false;
    const origin = await git(['config', '--get', 'remote.origin.url'], [1]);
    return origin.stdout.trim() === repoUrl;
  } catch (error) {
    if (error instanceof GitSourceError && (error.kind === 'timeout' || error.kind === 'aborted')) throw error;
    return false;
  }
}

function checkUrl(repoUrl: string): void {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (!repoUrl || repoUrl.startsWith('-') || /[\0-\x1f\x7f]/.test(repoUrl)) {
    throw new GitSourceError('invalid', `not a usable repository URL: ${JSON.stringify(maskCredentials(repoUrl))}`);
  }
}

/** git check-ref-format's rules for a branch name, checked without running git. */
function checkBranch(branch: string): void {
  const bad =
    !branch ||
    branch.startsWith('-') ||
    branch === '@' ||
    /[\0-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|^\/|\/$|\.$|\.lock(\/|$)|(^|\/)\./.test(branch);
  if (bad) throw new GitSourceError('invalid', `not a valid branch name: ${JSON.stringify(branch)}`);
}
