import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '#shared/local/freePort.ts';
import { git } from './bareRepo.ts';
import { runDir } from './runDir.ts';
import { newHostKey, sshdConfig, startSshd, stopSshd } from './sshd.ts';
import { onTeardown } from './teardown.ts';

const exec = promisify(execFile);

export interface SshGitServer {
  port: number;
  /** `ssh://<user>@127.0.0.1:<port>/<dir>/repos/<name>.git`. */
  url(name: string): string;
  /** The bare repository's folder, to push to or inspect directly. */
  repositoryDir(name: string): string;
  /** A bare repository on `main` with one commit holding `files` and, as gitlinks, `submodules` (at the head of the server's repository their URL names, unless `commit` says). */
  createRepository(name: string, content: RepositoryContent): Promise<{ url: string; head: string }>;
  /** Lets `publicKey` (an `ssh-… AAAA… comment` line) read every repository, or only `repos` (names). Others get what a host answers a deploy key without access. */
  authorize(publicKey: string, options?: { repos?: readonly string[] }): Promise<void>;
  /** Nobody may log in any more. */
  revokeAll(): Promise<void>;
  /** `SHA256:…` of the host key it presents now. */
  hostKeyFingerprint(): Promise<string>;
  /** Restarts on the same port with a new host key, as a reinstalled (or impostor) server would. */
  regenerateHostKey(): Promise<void>;
  stop(): Promise<void>;
}

export interface RepositoryContent {
  files: Record<string, string>;
  submodules?: ReadonlyArray<{ path: string; url: string; commit?: string }>;
}

/**
 * A private sshd on 127.0.0.1 serving the bare repositories under `dir/repos` through
 * git-upload-pack only, as a git host serves deploy keys: every login runs a forced command that
 * checks which repository is asked for. Runs as the current user (root in CI), stopped at the end
 * of the run.
 */
export async function startSshGitServer(dir = runDir('sshd')): Promise<SshGitServer> {
  const port = await freePort();
  const user = userInfo().username;
  const repos = join(dir, 'repos');
  const hostKey = join(dir, 'host_ed25519_key');
  const authorizedKeys = join(dir, 'authorized_keys');
  const serve = join(dir, 'serve-upload-pack');
  const config = join(dir, 'sshd_config');
  const heads = new Map<string, string>();
  const grants = new Map<string, readonly string[] | null>();
  await mkdir(repos, { recursive: true });
  // sshd wants its privilege-separation folder even when it runs as a plain user.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 }).catch(() => undefined);
  await writeFile(serve, SERVE_SCRIPT(repos), { mode: 0o755 });
  await writeFile(authorizedKeys, '', { mode: 0o600 });
  await writeFile(config, sshdConfig({ port, hostKey, authorizedKeys }));
  await newHostKey(hostKey);
  let sshd = await startSshd(config, port);
  onTeardown(() => stopSshd(sshd));

  const repositoryDir = (name: string) => join(repos, `${name}.git`);
  const url = (name: string) => `ssh://${user}@127.0.0.1:${port}${repositoryDir(name)}`;
  const headOf = (submoduleUrl: string): string => {
    const name = [...heads.keys()].find((candidate) => submoduleUrl === url(candidate) || submoduleUrl.endsWith(`/${candidate}.git`));
    const head = name === undefined ? undefined : heads.get(name);
    if (!head) throw new Error(`test server: no repository of this server at ${submoduleUrl}; give the submodule's commit`);
    return head;
  };
  const writeAuthorizedKeys = () =>
    writeFile(
      authorizedKeys,
      [...grants].map(([key, names]) => `command="${serve} ${names ? names.map(repositoryDir).join(' ') : '--all'}",restrict ${key}\n`).join(''),
      { mode: 0o600 },
    );

  return {
    port,
    url,
    repositoryDir,
    async createRepository(name, content) {
      if (!/^[\w-]+$/.test(name)) throw new Error(`test server: repository names are letters, digits, _ and -: ${name}`);
      const bare = repositoryDir(name);
      await git('/', 'init', '-q', '--bare', '--initial-branch=main', bare);
      // What a git host allows: partial clones, and fetching any commit it has by its sha.
      await git(bare, 'config', 'uploadpack.allowFilter', 'true');
      await git(bare, 'config', 'uploadpack.allowAnySHA1InWant', 'true');
      const work = join(runDir('ssh-git-work'), 'work');
      await git('/', 'init', '-q', '--initial-branch=main', work);
      for (const [path, text] of Object.entries(content.files)) {
        await mkdir(join(work, path, '..'), { recursive: true });
        await writeFile(join(work, path), text);
      }
      const submodules = content.submodules ?? [];
      if (submodules.length > 0) {
        await writeFile(join(work, '.gitmodules'), submodules.map((sub) => `[submodule "${sub.path}"]\n\tpath = ${sub.path}\n\turl = ${sub.url}\n`).join(''));
      }
      await git(work, 'add', '-A');
      for (const sub of submodules) await git(work, 'update-index', '--add', '--cacheinfo', `160000,${sub.commit ?? headOf(sub.url)},${sub.path}`);
      await git(work, 'commit', '-q', '-m', `create ${name}`);
      await git(work, 'push', '-q', bare, 'HEAD:refs/heads/main');
      const head = await git(work, 'rev-parse', 'HEAD');
      heads.set(name, head);
      return { url: url(name), head };
    },
    async authorize(publicKey, options = {}) {
      const key = publicKey.trim();
      if (!/^[a-z0-9@.-]+ [A-Za-z0-9+/=]+( [^\n]*)?$/.test(key)) throw new Error('test server: not a public key line');
      grants.set(key, options.repos ?? null);
      await writeAuthorizedKeys();
    },
    async revokeAll() {
      grants.clear();
      await writeAuthorizedKeys();
    },
    async hostKeyFingerprint() {
      const { stdout } = await exec('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`]);
      return stdout.split(' ')[1] ?? '';
    },
    async regenerateHostKey() {
      await stopSshd(sshd);
      await newHostKey(hostKey);
      sshd = await startSshd(config, port);
    },
    stop: () => stopSshd(sshd),
  };
}

/**
 * The forced command of every key: git-upload-pack of one of the repositories the key may read
 * (`--all`: any under the server's folder), else what GitHub answers a deploy key without access.
 */
const SERVE_SCRIPT = (repos: string) => `#!/bin/sh
set -f
case "$SSH_ORIGINAL_COMMAND" in
  "git-upload-pack '"*"'") ;;
  *) echo "ERROR: this server only serves git-upload-pack" >&2; exit 1 ;;
esac
path=\${SSH_ORIGINAL_COMMAND#git-upload-pack \\'}
path=\${path%\\'}
case "$path" in *"'"*|*..*) echo "ERROR: Repository not found." >&2; exit 1 ;; esac
allowed=no
if [ "$1" = "--all" ]; then
  case "$path" in '${repos}'/*) allowed=yes ;; esac
else
  for repo in "$@"; do [ "$path" = "$repo" ] && allowed=yes; done
fi
if [ "$allowed" = yes ] && [ -d "$path" ]; then exec git-upload-pack "$path"; fi
echo "ERROR: Repository not found." >&2
exit 1
`;

/** A new ed25519 key pair without a passphrase, as `ssh-keygen` writes it: the private key's OpenSSH text and the public key line. */
export async function newKeyPair(comment = 'forja-test'): Promise<{ privateKey: string; publicKey: string }> {
  const file = join(runDir('ssh-key'), 'key');
  await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
  return { privateKey: await readFile(file, 'utf8'), publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
}
