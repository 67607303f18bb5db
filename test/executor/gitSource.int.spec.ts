import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { checkoutCommit as checkoutAnyhow, GitSourceError, resolveBranchHead as resolveAnyhow, type GitOptions } from '#shared/git/gitSource.ts';
import { commitAndPush, createBareRepo, git, pushCommit, serveOverGitProtocol, type BareRepo } from '#test/support/bareRepo.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { recordedPids, running } from './fixtures/processes.ts';

/** What the test platforms allow: repositories in temporary folders, and servers of these tests on 127.0.0.1. */
const access = { fileRoots: [tmpdir()], allowHosts: ['127.0.0.1'] };
const resolveBranchHead = (url: string, branch: string, options: GitOptions = {}) => resolveAnyhow(url, branch, { access, ...options });
const checkoutCommit = (url: string, branch: string, commit: string, dir: string, options: GitOptions = {}) => checkoutAnyhow(url, branch, commit, dir, { access, ...options });

/** A stream that keeps what is written to it, like an instance's log. */
function logStream(): { log: PassThrough; text: () => string } {
  const log = new PassThrough();
  let text = '';
  log.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { log, text: () => text };
}

async function failure(promise: Promise<unknown>): Promise<GitSourceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(GitSourceError);
    return error as GitSourceError;
  }
  throw new Error('expected a GitSourceError');
}

describe('the executor’s git source', function () {
  this.timeout(30_000);
  let bare: BareRepo;

  before(async () => {
    bare = await createBareRepo('erp-addons', ['feature/x']);
  });

  describe('resolveBranchHead', () => {
    it('gives the head of main and of a branch with a slash', async () => {
      const mainHead = await git(bare.dir, 'rev-parse', 'refs/heads/main');
      const featureHead = await git(bare.dir, 'rev-parse', 'refs/heads/feature/x');
      expect(await resolveBranchHead(bare.url, 'main')).to.equal(mainHead);
      expect(await resolveBranchHead(bare.url, 'feature/x')).to.equal(featureHead);
      expect(featureHead).to.not.equal(mainHead);
    });

    it('does not take a branch whose name merely ends like the one asked for', async () => {
      await pushCommit(bare, 'team/x', 'a look-alike of x');
      const error = await failure(resolveBranchHead(bare.url, 'x'));
      expect(error.kind).to.equal('branch_not_found');
    });

    it('says which branch is missing from which repository', async () => {
      const error = await failure(resolveBranchHead(bare.url, 'nope'));
      expect(error.kind).to.equal('branch_not_found');
      expect(error.message).to.equal(`branch nope not found in ${bare.url}`);
    });

    it('says in its own words what kind of failure it was, leaving git’s words to the instance log', async () => {
      const missing = `file://${tmpdir()}/forja-nonexistent/repo.git`;
      const { log, text } = logStream();
      const error = await failure(resolveBranchHead(missing, 'main', { log }));
      expect(error.kind).to.equal('not_found');
      expect(error.message).to.equal(`the repository ${missing} was not found: check the URL (hosts also answer "not found" to a private repository)`);
      expect(text()).to.include(`fatal: '${tmpdir()}/forja-nonexistent/repo.git' does not appear to be a git repository`);
    });

    it('refuses option-like URLs and branch names without running git', async () => {
      expect((await failure(resolveBranchHead('--upload-pack=touch /tmp/x', 'main'))).kind).to.equal('invalid');
      expect((await failure(resolveBranchHead(bare.url, '--all'))).kind).to.equal('invalid');
      expect((await failure(resolveBranchHead(bare.url, 'a..b'))).kind).to.equal('invalid');
    });

    it('masks credentials in what it reports', async () => {
      const error = await failure(resolveBranchHead('https://deploy:s3cret@127.0.0.1:1/repo.git', 'main', { timeoutMs: 10_000 }));
      expect(error.kind).to.equal('unreachable');
      expect(error.message).to.not.include('s3cret');
      expect(error.message).to.include('https://***@127.0.0.1:1/repo.git');
    });

    it('stops a git that hangs, at the timeout or when aborted', async () => {
      const sockets: Socket[] = [];
      const silent = createServer((socket) => void sockets.push(socket)).listen(0, '127.0.0.1');
      await once(silent, 'listening');
      const hanging = `git://127.0.0.1:${(silent.address() as AddressInfo).port}/repo.git`;
      try {
        const started = Date.now();
        expect((await failure(resolveBranchHead(hanging, 'main', { timeoutMs: 300 }))).kind).to.equal('timeout');
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 300);
        expect((await failure(resolveBranchHead(hanging, 'main', { signal: controller.signal }))).kind).to.equal('aborted');
        expect(Date.now() - started).to.be.below(5000);
        expect((await failure(resolveBranchHead(bare.url, 'main', { signal: controller.signal }))).kind, 'already aborted').to.equal('aborted');
      } finally {
        silent.close();
        for (const socket of sockets) socket.destroy();
      }
    });
    it('stops git and the helpers it started as a process group: SIGTERM, then SIGKILL for those that ignore it', async function () {
      this.timeout(15_000);
      const bin = runDir('hanging-ssh');
      const pidFile = join(bin, 'pids');
      // An ssh that hangs and ignores SIGTERM, as does the child it starts.
      await writeFile(join(bin, 'ssh'), `#!/bin/sh\ntrap '' TERM\necho $$ > '${pidFile}'\nsleep 60 & echo $! >> '${pidFile}'\nwait\n`, { mode: 0o755 });
      const controller = new AbortController();
      const resolving = failure(resolveBranchHead('ssh://git@127.0.0.1:1/acme/erp.git', 'main', { signal: controller.signal, env: { PATH: `${bin}:${process.env['PATH'] ?? ''}` } }));
      await waitUntil(() => recordedPids(pidFile).length === 2, 'ssh and its child to start');
      const started = Date.now();
      controller.abort();
      expect((await resolving).kind).to.equal('aborted');
      expect(Date.now() - started, 'SIGKILL after the 5 s grace').to.be.within(4_500, 6_500);
      expect(recordedPids(pidFile).filter(running), 'helpers left').to.deep.equal([]);
    });
  });

  describe('ssh keys', () => {
    it('offers only the given keys, learns host keys into the given file and never prompts', async () => {
      const bin = runDir('fake-ssh');
      const record = join(bin, 'calls.txt');
      // A stand-in ssh on the PATH: it records how git called it and fails like an unreachable host.
      await writeFile(join(bin, 'ssh'), `#!/bin/sh\necho "$GIT_TERMINAL_PROMPT $*" >> '${record}'\necho 'ssh: connect to host 127.0.0.1 port 1: Connection refused' >&2\nexit 255\n`, { mode: 0o755 });
      const ssh = { keyFiles: ['/keys/deploy-a', '/keys/deploy-b'], knownHostsFile: '/keys/known_hosts' };
      const error = await failure(resolveBranchHead('ssh://git@127.0.0.1:1/acme/erp.git', 'main', { ssh, env: { PATH: `${bin}:${process.env['PATH'] ?? ''}` } }));
      expect(error.kind).to.equal('unreachable');
      expect(error.message).to.equal('could not connect to the host of the repository ssh://git@127.0.0.1:1/acme/erp.git: check its host name and port, and that the platform can reach it');
      const call = (await readFile(record, 'utf8')).trim();
      expect(call).to.match(
        /^0 -i \/keys\/deploy-a -i \/keys\/deploy-b -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=\/keys\/known_hosts .*-p 1 git@127\.0\.0\.1 git-upload-pack '\/acme\/erp\.git'$/,
      );
    });

    it('with a host check, asks it about every ssh host first and lets ssh trust only the known_hosts file, offering no key when given none', async () => {
      const bin = runDir('fake-ssh');
      const record = join(bin, 'calls.txt');
      await writeFile(join(bin, 'ssh'), `#!/bin/sh\necho "$*" >> '${record}'\necho 'Permission denied (publickey).' >&2\nexit 255\n`, { mode: 0o755 });
      const checked: unknown[] = [];
      const ssh = { keyFiles: [], knownHostsFile: '/keys/known_hosts', checkHost: async (target: { host: string; port: number }) => void checked.push(target) };
      const env = { PATH: `${bin}:${process.env['PATH'] ?? ''}` };
      const error = await failure(resolveBranchHead('git@127.0.0.1:acme/erp.git', 'main', { ssh, env }));
      expect(error.kind).to.equal('auth_failed');
      expect(error.message).to.equal("the repository refused the project's SSH keys: add the public key of one of them as a deploy key of git@127.0.0.1:acme/erp.git");
      expect(checked).to.deep.equal([{ host: '127.0.0.1', port: 22 }]);
      expect((await readFile(record, 'utf8')).trim()).to.match(
        /^-o IdentityFile=none -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=\/keys\/known_hosts -o GlobalKnownHostsFile=\/dev\/null -o UpdateHostKeys=no .*git@127\.0\.0\.1 git-upload-pack 'acme\/erp\.git'$/,
      );
    });

    it('runs no git when the host check refuses, and checks no host of a non-ssh repository', async () => {
      const { log, text } = logStream();
      const refusal = new GitSourceError('host_key_changed', 'not the pinned key');
      const ssh = { keyFiles: [], knownHostsFile: '/keys/known_hosts', checkHost: () => Promise.reject(refusal) };
      expect(await failure(resolveBranchHead('ssh://git@127.0.0.1:2222/acme/erp.git', 'main', { ssh, log }))).to.equal(refusal);
      expect(await failure(checkoutCommit('ssh://git@127.0.0.1:2222/acme/erp.git', 'main', 'a'.repeat(40), join(runDir('checkout'), 'src'), { ssh, log }))).to.equal(refusal);
      expect(text(), 'git never ran').to.equal('');
      expect(await resolveBranchHead(bare.url, 'main', { ssh })).to.match(/^[0-9a-f]{40}$/);
    });

    it('refuses key paths ssh or the shell would misread', async () => {
      const error = await failure(resolveBranchHead(bare.url, 'main', { ssh: { keyFiles: ['/keys/my key'], knownHostsFile: '/keys/known_hosts' } }));
      expect(error.kind).to.equal('invalid');
    });
  });

  describe('checkoutCommit', () => {
    it('checks out a commit, then moves the same folder to a newer one', async () => {
      const dir = join(runDir('checkout'), 'src');
      const { log, text } = logStream();
      const first = await resolveBranchHead(bare.url, 'feature/x');
      expect(await checkoutCommit(bare.url, 'feature/x', first, dir, { log })).to.equal(first);
      expect(await git(dir, 'rev-parse', 'HEAD')).to.equal(first);
      expect(text()).to.include('$ git');

      await writeFile(join(dir, 'build-output.pyc'), 'left by a build');
      await writeFile(join(dir, 'history.txt'), 'edited in place');
      const second = await pushCommit(bare, 'feature/x', 'second commit on feature/x');
      expect(await checkoutCommit(bare.url, 'feature/x', second, dir)).to.equal(second);
      expect(await git(dir, 'rev-parse', 'HEAD')).to.equal(second);
      expect(await readFile(join(dir, 'history.txt'), 'utf8')).to.include('second commit on feature/x');
      expect(existsSync(join(dir, 'build-output.pyc')), 'untracked files are removed').to.equal(false);
      expect(await git(dir, 'status', '--porcelain')).to.equal('');
    });

    it('goes back to an older commit still on the branch', async () => {
      const dir = join(runDir('checkout'), 'src');
      const older = await resolveBranchHead(bare.url, 'main');
      await pushCommit(bare, 'main', 'newer');
      expect(await checkoutCommit(bare.url, 'main', older, dir)).to.equal(older);
    });

    for (const [what, prepare] of [
      ['an empty folder', async (dir: string) => mkdir(dir, { recursive: true })],
      ['a folder of junk', async (dir: string) => (await mkdir(join(dir, 'sub'), { recursive: true }), writeFile(join(dir, 'sub', 'junk'), 'x'))],
      ['a half-made repository', async (dir: string) => (await git('/', 'init', '-q', dir), writeFile(join(dir, '.git', 'index.lock'), ''))],
      ['a clone of another repository', async (dir: string) => git('/', 'clone', '-q', (await createBareRepo('other')).url, dir)],
      ['a work tree with a stale index lock', async (dir: string) => {
        await checkoutCommit(bare.url, 'main', await resolveBranchHead(bare.url, 'main'), dir);
        await writeFile(join(dir, '.git', 'index.lock'), '');
      }],
    ] as const) {
      it(`replaces ${what}`, async () => {
        const dir = join(runDir('checkout'), 'src');
        await prepare(dir);
        const head = await pushCommit(bare, 'main', `commit over ${what}`);
        expect(await checkoutCommit(bare.url, 'main', head, dir)).to.equal(head);
        expect(await git(dir, 'config', '--get', 'remote.origin.url')).to.equal(bare.url);
        expect(await git(dir, 'status', '--porcelain')).to.equal('');
      });
    }

    it('checks out submodules, nested ones included', async () => {
      const inner = await createBareRepo('inner');
      const outer = await createBareRepo('outer-lib');
      await commitAndPush(outer, 'main', 'add inner', (work) => git(work, 'submodule', 'add', '-q', inner.url, 'vendor/inner'));
      const head = await commitAndPush(bare, 'with-submodule', 'add a library', (work) => git(work, 'submodule', 'add', '-q', outer.url, 'libs/outer'));
      const dir = join(runDir('checkout'), 'src');
      expect(await checkoutCommit(bare.url, 'with-submodule', head, dir)).to.equal(head);
      expect(await readFile(join(dir, 'libs/outer/history.txt'), 'utf8')).to.include('initial commit');
      expect(await readFile(join(dir, 'libs/outer/vendor/inner/history.txt'), 'utf8')).to.include('initial commit');

      const innerHead = await pushCommit(inner, 'main', 'inner moves on');
      const outerHead = await commitAndPush(outer, 'main', 'bump inner', (work) => git(work, 'submodule', 'update', '--init', '--remote', '-q'));
      const bumped = await commitAndPush(bare, 'with-submodule', 'bump the library', (work) =>
        git(work, 'submodule', 'update', '--init', '-q').then(() => git(join(work, 'libs/outer'), 'checkout', '-q', outerHead)),
      );
      expect(await checkoutCommit(bare.url, 'with-submodule', bumped, dir)).to.equal(bumped);
      expect(await git(join(dir, 'libs/outer/vendor/inner'), 'rev-parse', 'HEAD')).to.equal(innerHead);
    });

    it('works over git://, and refuses a file:// submodule there', async () => {
      const served = await createBareRepo('served');
      const url = await serveOverGitProtocol(served);
      const dir = join(runDir('checkout'), 'src');
      const head = await resolveBranchHead(url, 'main');
      expect(await checkoutCommit(url, 'main', head, dir)).to.equal(head);

      const local = await createBareRepo('local-only');
      const withLocal = await commitAndPush(served, 'main', 'add a local submodule', (work) => git(work, 'submodule', 'add', '-q', local.url, 'local'));
      const error = await failure(checkoutCommit(url, 'main', withLocal, dir));
      expect(error.kind).to.equal('invalid');
      expect(error.message).to.equal(`submodule ${local.url} of ${url}: only a local repository may have local submodules`);
    });

    it('says when the commit is not on the branch', async () => {
      const other = await pushCommit(await createBareRepo('elsewhere'), 'main', 'not in our repository');
      const error = await failure(checkoutCommit(bare.url, 'main', other, join(runDir('checkout'), 'src')));
      expect(error.kind).to.equal('commit_missing');
    });

    it('stops at submodules nested more than 8 deep, each level being checked before it is fetched', async () => {
      // Innermost first: level-9 is plain, each level below holds the next as its submodule.
      let inner = await createBareRepo('level-9');
      for (let level = 8; level >= 0; level--) {
        const outer = await createBareRepo(`level-${level}`);
        const nested = inner;
        await commitAndPush(outer, 'main', `nest level ${level + 1}`, (work) => git(work, 'submodule', 'add', '-q', nested.url, 'inner'));
        inner = outer;
      }
      const head = await resolveBranchHead(inner.url, 'main');
      const error = await failure(checkoutCommit(inner.url, 'main', head, join(runDir('checkout'), 'src')));
      expect(error.kind).to.equal('invalid');
      expect(error.message).to.equal(`submodules of ${inner.url} are nested more than 8 deep`);
    });

    it('says when the branch is gone', async () => {
      const error = await failure(checkoutCommit(bare.url, 'gone', 'b'.repeat(40), join(runDir('checkout'), 'src')));
      expect(error.kind).to.equal('branch_not_found');
      expect(error.message).to.equal(`branch gone not found in ${bare.url}`);
    });

    it('refuses a relative folder, the root and an abbreviated sha', async () => {
      const head = await resolveBranchHead(bare.url, 'main');
      expect((await failure(checkoutCommit(bare.url, 'main', head, 'relative/dir'))).kind).to.equal('invalid');
      expect((await failure(checkoutCommit(bare.url, 'main', head, '/'))).kind).to.equal('invalid');
      expect((await failure(checkoutCommit(bare.url, 'main', head.slice(0, 12), '/tmp/x'))).kind).to.equal('invalid');
    });
  });
});
