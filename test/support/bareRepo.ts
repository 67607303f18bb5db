import { execFile, spawn } from 'node:child_process';
import { appendFile, chmod, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '#shared/local/freePort.ts';
import { runDir } from './runDir.ts';
import { onTeardown } from './teardown.ts';
import { waitUntil } from './wait.ts';

const exec = promisify(execFile);

/** A bare repository made for one test, removed at the end of the run. */
export interface BareRepo {
  dir: string;
  /** `file://…`, as a project's git_repo would be. */
  url: string;
}

const IDENTITY = { GIT_AUTHOR_NAME: 'Forja Test', GIT_AUTHOR_EMAIL: 'test@forja.invalid', GIT_COMMITTER_NAME: 'Forja Test', GIT_COMMITTER_EMAIL: 'test@forja.invalid' };

/** Runs git in `cwd` (file:// allowed for submodules) and returns its trimmed stdout. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec('git', ['-c', 'protocol.file.allow=always', ...args], { cwd, env: { ...process.env, ...IDENTITY, GIT_TERMINAL_PROMPT: '0' } });
  return stdout.trim();
}

/** A bare repository with one commit on `main`, and one more commit on each of `branches` (made from main). */
export async function createBareRepo(name = 'repo', branches: readonly string[] = []): Promise<BareRepo> {
  const dir = join(runDir('git'), `${name}.git`);
  await git('/', 'init', '-q', '--bare', '--initial-branch=main', dir);
  const bare = { dir, url: `file://${dir}` };
  await pushCommit(bare, 'main', 'initial commit');
  for (const branch of branches) await pushCommit(bare, branch, `first commit on ${branch}`);
  return bare;
}

/** Clones `bare` into a fresh work folder, lets `edit` change it, commits everything on `branch` (made from main when new) and pushes; returns the commit. */
export async function commitAndPush(bare: BareRepo, branch: string, message: string, edit: (workDir: string) => Promise<unknown>): Promise<string> {
  const work = join(runDir('git-work'), 'work');
  await git('/', 'clone', '-q', bare.url, work);
  const exists = (await git(work, 'ls-remote', '--heads', 'origin', `refs/heads/${branch}`)) !== '';
  const hasMain = (await git(work, 'ls-remote', '--heads', 'origin', 'refs/heads/main')) !== '';
  if (exists) await git(work, 'checkout', '-q', '-B', branch, `origin/${branch}`);
  else if (hasMain) await git(work, 'checkout', '-q', '-B', branch, 'origin/main');
  else await git(work, 'symbolic-ref', 'HEAD', `refs/heads/${branch}`);
  await edit(work);
  await git(work, 'add', '-A');
  await git(work, 'commit', '-q', '--allow-empty', '-m', message);
  await git(work, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
  return git(work, 'rev-parse', 'HEAD');
}

/** Pushes one new commit (a line added to history.txt) on `branch`; returns it. */
export function pushCommit(bare: BareRepo, branch: string, message: string): Promise<string> {
  return commitAndPush(bare, branch, message, (work) => appendFile(join(work, 'history.txt'), `${message}\n`));
}

/**
 * Makes every push to `bare` deliver a GitHub-shaped push hook to `url`, one POST per pushed ref
 * (`X-GitHub-Event: push`, JSON ref/before/after/deleted/repository), the way a git host would.
 * git waits for post-receive, so the deliveries have been answered when `git push` returns.
 */
export async function installPostReceiveHook(bare: BareRepo, url: string): Promise<void> {
  const name = basename(bare.dir, '.git');
  const script = `#!/bin/sh
# Forja test hook: a push hook like a git host's, delivered with curl.
url=${shellQuote(url)}
repository='{"name":"${name}","full_name":"forja-test/${name}","clone_url":"${bare.url}"}'
json_escape() { printf '%s' "$1" | sed 's/\\\\/\\\\\\\\/g; s/"/\\\\"/g'; }
while read -r before after ref; do
  case "$after" in *[!0]*) deleted=false ;; *) deleted=true ;; esac
  delivery=$(cat /proc/sys/kernel/random/uuid 2>/dev/null || echo "$$-$(date +%s)")
  body=$(printf '{"ref":"%s","before":"%s","after":"%s","deleted":%s,"repository":%s,"pusher":{"name":"forja-test"}}' "$(json_escape "$ref")" "$before" "$after" "$deleted" "$repository")
  status=$(curl -sS --noproxy '*' --max-time 10 -o /dev/null -w '%{http_code}' -X POST \\
    -H 'Content-Type: application/json' -H 'X-GitHub-Event: push' -H "X-GitHub-Delivery: $delivery" \\
    --data-binary "$body" "$url") || status=failed
  echo "forja hook: $ref -> $status"
done
`;
  const hook = join(bare.dir, 'hooks', 'post-receive');
  await writeFile(hook, script);
  await chmod(hook, 0o755);
}

/** Serves `bare` read-only over git:// from a `git daemon` on 127.0.0.1 (stopped at the end of the run); returns its git:// URL. */
export async function serveOverGitProtocol(bare: BareRepo): Promise<string> {
  const port = await freePort();
  const root = dirname(bare.dir);
  const daemon = spawn('git', ['daemon', '--reuseaddr', '--export-all', '--listen=127.0.0.1', `--port=${port}`, `--base-path=${root}`, root], { stdio: 'ignore' });
  onTeardown(async () => void daemon.kill());
  const url = `git://127.0.0.1:${port}/${basename(bare.dir)}`;
  await waitUntil(() => git('/', 'ls-remote', url).then(() => true, () => false), `git daemon on port ${port}`);
  return url;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
