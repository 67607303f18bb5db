import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { GitAccess } from './gitAccess.ts';
import { gitTarget } from './gitTarget.ts';
import { stopGroupOnAbort } from '../platform/processGroup.ts';

/** How the executor's git calls run. Every field is optional. */
export interface GitOptions {
  /** Added to git's environment. Cannot turn the terminal prompt back on. */
  env?: Record<string, string>;
  /** Private keys for ssh URLs and where host keys come from (see SshOptions). */
  ssh?: SshOptions;
  /** Limit for the whole operation (every git call it makes), default 10 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Receives each command line (credentials masked) and git's messages; never ended here. */
  log?: Writable;
  /** Which repositories git may read (FORJA_GIT_FILE_ROOTS, FORJA_GIT_ALLOW_HOSTS); unset = no local ones, public hosts only. */
  access?: GitAccess;
  /** Resolves a host name to all its addresses, for the private-address check; default dns.lookup. */
  lookup?: HostLookup;
}

/**
 * How git's ssh runs. The keys in `keyFiles` are offered in order, and only they (none at all
 * when the list is empty). Without `checkHost`, host keys are learnt on first use into
 * `knownHostsFile`; with it, ssh accepts only the keys already in that file, and every ssh host
 * (the repository's and each submodule's) is handed to `checkHost` after the access check and
 * before git contacts it: that is where a host key is pinned or compared (sshSession.ts).
 */
export interface SshOptions {
  keyFiles: readonly string[];
  knownHostsFile: string;
  /** Rejects (GitSourceError) when git must not talk to the host; its known keys are in `knownHostsFile` when it resolves. */
  checkHost?: (target: { host: string; port: number }) => Promise<void>;
}

/** Every address a host name resolves to (resolving only; nothing connects). */
export type HostLookup = (host: string) => Promise<string[]>;

export type GitSourceErrorKind =
  | 'invalid'
  | 'branch_not_found'
  | 'commit_missing'
  | 'auth_failed'
  | 'host_key_changed'
  | 'not_found'
  | 'unreachable'
  | 'unreadable'
  | 'timeout'
  | 'aborted'
  | 'failed';

/**
 * Why a git operation failed. `branch_not_found`, `commit_missing`, `invalid`, `auth_failed`,
 * `host_key_changed` and `not_found` will fail again on a retry until someone changes something;
 * `unreachable`, `timeout`, `unreadable` (git's words did not tell which) and `failed` may not.
 */
export class GitSourceError extends Error {
  override readonly name = 'GitSourceError';
  constructor(
    readonly kind: GitSourceErrorKind,
    message: string,
    /** The end of git's stderr, for a `failed` command. */
    readonly stderr = '',
  ) {
    super(message);
  }
}

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** After SIGTERM (git removes its lock files on it), the process group gets this long before SIGKILL. */
const KILL_GRACE_MS = 5000;
const STDERR_KEPT = 16 * 1024;

/**
 * Variables that point git at one particular repository: inherited from a git hook or a shell
 * inside a repository, they would redirect every command, so they never pass through.
 */
const REPOSITORY_VARIABLES = [
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_COMMON_DIR',
  'GIT_NAMESPACE', 'GIT_PREFIX', 'GIT_QUARANTINE_PATH', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_SHALLOW_FILE',
];

/** The protocols a repository (and its submodules) may use: git's known-safe ones, plus local files only for a local repository. */
export function allowedProtocols(repoUrl: string): string {
  return isLocalRepository(repoUrl) ? 'http:https:ssh:git:file' : 'http:https:ssh:git';
}

/** A repository on this machine: `file://…` or a path. */
export function isLocalRepository(repoUrl: string): boolean {
  return gitTarget(repoUrl).kind === 'local';
}

/** git's environment: the caller's additions, never a prompt, the ssh keys when given. */
export function gitEnv(repoUrl: string, options: GitOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REPOSITORY_VARIABLES) delete env[name];
  Object.assign(env, options.env, { GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never', GIT_ALLOW_PROTOCOL: allowedProtocols(repoUrl) });
  if (options.ssh) env['GIT_SSH_COMMAND'] = sshCommand(options.ssh);
  return env;
}

const PLAIN_PATH = /^\/[\w@+=,./-]*$/;

/**
 * git runs GIT_SSH_COMMAND through a shell and ssh expands `%` and splits its options on spaces,
 * so the paths must be plain absolute paths; BatchMode makes a passphrase fail instead of asking.
 * No key file means no key: without `IdentityFile=none` ssh would offer the platform user's own.
 * With `checkHost`, only the pinned keys count: no learning, no system-wide known_hosts.
 */
export function sshCommand(ssh: SshOptions): string {
  for (const path of [...ssh.keyFiles, ssh.knownHostsFile]) {
    if (!PLAIN_PATH.test(path)) throw new GitSourceError('invalid', `ssh key and known-hosts paths must be absolute, with letters, digits and . _ - / @ + = , only: ${path}`);
  }
  const keys = ssh.keyFiles.length > 0 ? ssh.keyFiles.flatMap((file) => ['-i', `'${file}'`]) : ['-o', 'IdentityFile=none'];
  const hostKeys = ssh.checkHost
    ? ['-o', 'StrictHostKeyChecking=yes', '-o', `'UserKnownHostsFile=${ssh.knownHostsFile}'`, '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'UpdateHostKeys=no']
    : ['-o', 'StrictHostKeyChecking=accept-new', '-o', `'UserKnownHostsFile=${ssh.knownHostsFile}'`];
  return ['ssh', ...keys, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', ...hostKeys].join(' ');
}

/** Hides tokens in URLs: all of an http(s) user part (`https://token@…`), the password of any other (`ssh://git:pw@…`). */
export function maskCredentials(text: string): string {
  return text.replace(/(https?:\/\/)[^/@\s]+@/gi, '$1***@').replace(/([a-z][a-z0-9+.-]*:\/\/[^/:@\s]+):[^/@\s]+@/gi, '$1:***@');
}

/**
 * The line of git's stderr that says what went wrong: its first `fatal:` line (later ones, and
 * the advice git adds, only repeat that it gave up), else the last line.
 */
export function lastMeaningfulLine(stderr: string): string {
  const lines = stderr.split(/\r?\n|\r/).map((line) => line.trim()).filter(Boolean);
  const generic = /^(please make sure you have the correct access rights|and the repository exists\.|fatal: could not read from remote repository\.)$/i;
  const meaningful = lines.filter((line) => !generic.test(line));
  const line = meaningful.find((candidate) => candidate.startsWith('fatal:')) ?? meaningful.at(-1) ?? lines.at(-1) ?? 'no message from git';
  return maskCredentials(line);
}

export interface RunGitOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  log?: Writable;
  /** Exit codes that resolve instead of rejecting (0 always does). */
  allowExitCodes?: readonly number[];
}

/**
 * Runs git without a shell in its own process group, so that aborting also stops the helpers it
 * started (ssh, remote-https, upload-pack). Rejects with GitSourceError `failed` on another exit
 * code, `timeout` or `aborted` when the signal fires.
 */
export function runGit(args: readonly string[], run: RunGitOptions): Promise<GitResult> {
  if (run.signal.aborted) return Promise.reject(stoppedError(run.signal, args));
  run.log?.write(`$ git ${maskCredentials(args.join(' '))}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: run.cwd, env: run.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT);
      run.log?.write(maskCredentials(chunk));
    });
    const abort = stopGroupOnAbort(child, run.signal, KILL_GRACE_MS);
    child.once('error', (error) => {
      void abort.finish().then(() => reject(new GitSourceError('failed', `cannot run git: ${error.message}`)));
    });
    child.once('close', (code) => {
      void abort.finish().then(() => {
        if (run.signal.aborted) return reject(stoppedError(run.signal, args));
        const exitCode = code ?? -1;
        if (exitCode === 0 || run.allowExitCodes?.includes(exitCode)) return resolve({ exitCode, stdout, stderr });
        reject(new GitSourceError('failed', `git ${args[0] ?? ''} failed (exit ${exitCode}): ${lastMeaningfulLine(stderr)}`, stderr));
      });
    });
  });
}

function stoppedError(signal: AbortSignal, args: readonly string[]): GitSourceError {
  const timedOut = (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
  return new GitSourceError(timedOut ? 'timeout' : 'aborted', `git ${args[0] ?? ''} ${timedOut ? 'timed out' : 'was aborted'}`);
}

/** The operation's signal: the caller's, bounded by the timeout. */
export function operationSignal(options: GitOptions): AbortSignal {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
}
