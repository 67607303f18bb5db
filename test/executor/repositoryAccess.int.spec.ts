import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { checkoutCommit, GitSourceError, resolveBranchHead, type GitOptions } from '#shared/git/gitSource.ts';
import { commitAndPush, createBareRepo, git } from '#test/support/bareRepo.ts';
import { runDir } from '#test/support/runDir.ts';

/** This checkout: the audit ran Forja's own repository as an instance. */
const FORJA = resolve(import.meta.dirname, '../..');

async function failure(promise: Promise<unknown>): Promise<GitSourceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(GitSourceError);
    return error as GitSourceError;
  }
  throw new Error('expected a GitSourceError');
}

function logStream(): { log: PassThrough; text: () => string } {
  const log = new PassThrough();
  let text = '';
  log.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { log, text: () => text };
}

/** A TCP server on 127.0.0.1 that counts connections and greets each like an SSH server. */
async function listener(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.on('error', () => undefined); // git hangs up as soon as it has read the greeting
    socket.end('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n');
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** A stand-in ssh on the PATH that records that git ran it and fails like an unreachable host: nothing touches the network. */
async function fakeSsh(): Promise<{ env: Record<string, string>; called: () => Promise<boolean> }> {
  const bin = runDir('fake-ssh');
  const record = join(bin, 'calls.txt');
  await writeFile(join(bin, 'ssh'), `#!/bin/sh\necho "$*" >> '${record}'\necho 'ssh: connect to host port 22: Connection refused' >&2\nexit 255\n`, { mode: 0o755 });
  return { env: { PATH: `${bin}:${process.env['PATH'] ?? ''}` }, called: () => readFile(record, 'utf8').then(() => true, () => false) };
}

/**
 * Issue 10, item 8: a developer's repository URL made the executor's git read any repository on
 * the host (`file://` Forja's own checkout ran as an instance) and reach any port of the private
 * network, answering with what it heard there in last_error. Now git reads local repositories only
 * from the listed folders, reaches loopback, private and link-local hosts only when listed, and
 * what a remote said stays in the instance log.
 */
describe('what the executor’s git may read (issue 10, item 8)', function () {
  this.timeout(30_000);

  describe('local repositories', () => {
    it('refuses Forja’s own repository, by file:// or path, without running git', async () => {
      const forjaHead = await git(FORJA, 'rev-parse', 'HEAD');
      const dir = join(runDir('checkout'), 'src');
      const root = runDir('git-root');
      const access = { fileRoots: [root], allowHosts: [] };
      for (const url of [`file://${FORJA}`, FORJA, `file://${root}/%2e%2e/%2e%2e${FORJA}`]) {
        const { log, text } = logStream();
        const resolved = await failure(resolveBranchHead(url, 'main', { access, log }));
        expect(resolved.kind, url).to.equal('invalid');
        expect(resolved.message, url).to.equal(`${FORJA} is outside the folders local repositories may come from (FORJA_GIT_FILE_ROOTS)`);
        const checkedOut = await failure(checkoutCommit(url, 'main', forjaHead, dir, { access, log }));
        expect(checkedOut.kind, url).to.equal('invalid');
        expect(text(), 'git never ran').to.equal('');
        expect(existsSync(dir), 'nothing was checked out').to.equal(false);
      }
    });

    it('refuses every local repository when no folder is listed (the default)', async () => {
      const bare = await createBareRepo('unlisted');
      const error = await failure(resolveBranchHead(bare.url, 'main'));
      expect(error.kind).to.equal('invalid');
      expect(error.message).to.equal('local repositories (file:// or a path) are off on this platform: an operator can allow folders with FORJA_GIT_FILE_ROOTS');
    });

    it('reads one inside a listed folder, but not through a link that leads out of it', async () => {
      const bare = await createBareRepo('listed');
      const access = { fileRoots: [tmpdir()], allowHosts: [] };
      expect(await resolveBranchHead(bare.url, 'main', { access })).to.match(/^[0-9a-f]{40}$/);
      const root = runDir('git-root');
      await symlink(FORJA, join(root, 'innocent.git'));
      const error = await failure(resolveBranchHead(`file://${root}/innocent.git`, 'main', { access: { fileRoots: [root], allowHosts: [] } }));
      expect(error.kind).to.equal('invalid');
      expect(error.message).to.equal(`${root}/innocent.git leads to ${FORJA}, outside the folders local repositories may come from (FORJA_GIT_FILE_ROOTS)`);
    });

    it('refuses a submodule that points outside the listed folders before fetching it', async () => {
      const bare = await createBareRepo('with-forja');
      const forjaHead = await git(FORJA, 'rev-parse', 'HEAD');
      // A gitlink and a .gitmodules, as `git submodule add` would write them, without cloning Forja here.
      const head = await commitAndPush(bare, 'main', 'vendor forja', async (work) => {
        await writeFile(join(work, '.gitmodules'), `[submodule "forja"]\n\tpath = vendor/forja\n\turl = file://${FORJA}\n`);
        await git(work, 'update-index', '--add', '--cacheinfo', `160000,${forjaHead},vendor/forja`);
        await mkdir(join(work, 'vendor/forja'), { recursive: true }); // an uninitialized submodule: `git add -A` keeps its gitlink
      });
      const dir = join(runDir('checkout'), 'src');
      const { log, text } = logStream();
      // Only the bare repository's own folder is listed: wherever this checkout lives (CI clones under /tmp too), it is outside.
      const error = await failure(checkoutCommit(bare.url, 'main', head, dir, { access: { fileRoots: [dirname(bare.dir)], allowHosts: [] }, log }));
      expect(error.kind).to.equal('invalid');
      expect(error.message).to.equal(`submodule file://${FORJA} of ${bare.url}: ${FORJA} is outside the folders local repositories may come from (FORJA_GIT_FILE_ROOTS)`);
      expect(text()).to.not.include('submodule update');
      expect(existsSync(join(dir, 'vendor/forja/package.json')), 'Forja was not checked out').to.equal(false);
    });
  });

  describe('hosts', () => {
    it('refuses loopback hosts, however the address is written, without connecting', async () => {
      const { server, port, connections } = await listener();
      try {
        for (const host of ['127.0.0.1', '0x7f.1', '2130706433', '127.1', '017700000001']) {
          const url = `git://${host}:${port}/acme/erp.git`;
          const error = await failure(resolveBranchHead(url, 'main', { access: { fileRoots: [], allowHosts: [] } }));
          expect(error.kind, url).to.equal('invalid');
          expect(error.message, url).to.equal(`git may not reach ${host}: it is a loopback address (this machine); an operator can allow it with FORJA_GIT_ALLOW_HOSTS`);
        }
        expect(connections(), 'connections made').to.equal(0);
      } finally {
        server.close();
      }
    });

    it('keeps what a listed host answered out of the error: it is in the instance log only', async () => {
      const { server, port, connections } = await listener();
      try {
        const url = `git://127.0.0.1:${port}/acme/erp.git`;
        const { log, text } = logStream();
        const error = await failure(resolveBranchHead(url, 'main', { access: { fileRoots: [], allowHosts: ['127.0.0.1'] }, log }));
        expect(connections(), 'a listed host is reached').to.equal(1);
        expect(error.kind).to.equal('unreadable');
        expect(error.message).to.equal(`could not reach the repository ${url} (see the instance log)`);
        expect(text()).to.include('SSH-');
      } finally {
        server.close();
      }
    });

    it('resolves a name and refuses it when any of its addresses is private, without running git', async () => {
      const ssh = await fakeSsh();
      const { log, text } = logStream();
      const lookup = async (host: string) => (host === 'git.corp.example' ? ['93.184.215.14', '10.1.2.3'] : []);
      const options: GitOptions = { lookup, log, env: ssh.env, access: { fileRoots: [], allowHosts: [] } };
      const error = await failure(resolveBranchHead('ssh://git@git.corp.example/acme/erp.git', 'main', options));
      expect(error.kind).to.equal('invalid');
      expect(error.message).to.equal('git may not reach git.corp.example: it resolves to a private address; an operator can allow it with FORJA_GIT_ALLOW_HOSTS');
      expect(text()).to.equal('forja: git.corp.example resolves to 10.1.2.3\n');
      expect(await ssh.called(), 'git did not run').to.equal(false);
    });

    it('lets git reach a private host listed by name or by range', async () => {
      const lookup = async () => ['10.1.2.3'];
      for (const allowHosts of [['git.corp.example'], ['10.0.0.0/8']]) {
        const ssh = await fakeSsh();
        const error = await failure(resolveBranchHead('git@git.corp.example:acme/erp.git', 'main', { lookup, env: ssh.env, access: { fileRoots: [], allowHosts } }));
        expect(error.kind, allowHosts[0]).to.equal('unreachable');
        expect(await ssh.called(), `${allowHosts[0]}: git ran`).to.equal(true);
      }
    });

    it('says only that a name cannot be resolved, with the reason in the log', async () => {
      const { log, text } = logStream();
      const lookup = async () => Promise.reject(new Error('getaddrinfo ENOTFOUND git.nowhere.example'));
      const error = await failure(resolveBranchHead('https://git.nowhere.example/acme/erp.git', 'main', { lookup, log, access: { fileRoots: [], allowHosts: [] } }));
      expect(error.kind).to.equal('unreadable');
      expect(error.message).to.equal('could not reach the repository https://git.nowhere.example/acme/erp.git (see the instance log)');
      expect(text()).to.equal('forja: cannot resolve git.nowhere.example: getaddrinfo ENOTFOUND git.nowhere.example\n');
    });

    it('refuses remote helpers and unknown schemes', async () => {
      for (const [url, why] of [
        ['ext::sh -c touch% /tmp/pwned', 'remote helper URLs (<transport>::<address>) are not allowed'],
        ['fd::3', 'remote helper URLs (<transport>::<address>) are not allowed'],
        ['ftp://127.0.0.1/x.git', 'git may not use ftp:// URLs'],
      ] as const) {
        const error = await failure(resolveBranchHead(url, 'main', { access: { fileRoots: ['/'], allowHosts: ['127.0.0.1'] } }));
        expect(error.message, url).to.equal(why);
      }
    });
  });
});
