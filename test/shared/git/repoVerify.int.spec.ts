import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import type { GitOptions } from '#shared/git/gitCommand.ts';
import type { HostKey } from '#shared/git/hostKeys.ts';
import { verifyRepositories, type RepositoryCheck } from '#shared/git/repoVerify.ts';
import { withSshSession, type HostKeyBook } from '#shared/git/sshSession.ts';
import { commitAndPush, createBareRepo, git } from '#test/support/bareRepo.ts';
import { runDir } from '#test/support/runDir.ts';
import { newKeyPair, startSshGitServer, type SshGitServer } from '#test/support/sshGitServer.ts';

const access = { fileRoots: [], allowHosts: ['127.0.0.1'] };

function memoryBook(): HostKeyBook & { pins: Array<{ host: string; port: number; keys: HostKey[] }> } {
  const pins: Array<{ host: string; port: number; keys: HostKey[] }> = [];
  return {
    pins,
    pinned: (host, port) => pins.findLast((pin) => pin.host === host && pin.port === port)?.keys,
    pin: async (host, port, keys) => void pins.push({ host, port, keys }),
  };
}

function logStream(): { log: PassThrough; text: () => string } {
  const log = new PassThrough();
  let text = '';
  log.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { log, text: () => text };
}

/** Repositories as the table shows them: path, status, and the URL and head when they are checked too. */
const rows = (checks: RepositoryCheck[]) => checks.map(({ path, status }) => ({ path, status }));

describe('verifying a repository and its submodules (real sshd)', function () {
  this.timeout(60_000);
  let server: SshGitServer;
  let key: { privateKey: string; publicKey: string };
  let book: HostKeyBook & { pins: unknown[] };
  let heads: Record<string, string>;
  const verify = (url: string, privateKey = key.privateKey, options: GitOptions & { perRepositoryTimeoutMs?: number } = {}) =>
    withSshSession([{ name: 'deploy', privateKey }], book, (ssh) => verifyRepositories(url, { ssh, access, ...options }));

  before(async () => {
    server = await startSshGitServer();
    key = await newKeyPair('verify-deploy');
    book = memoryBook();
    const inner = await server.createRepository('inner', { files: { 'inner.txt': 'inner\n' } });
    const lib = await server.createRepository('lib', { files: { 'lib.txt': 'lib\n' }, submodules: [{ path: 'vendor/inner', url: '../inner.git' }] });
    const secret = await server.createRepository('secret', { files: { 'secret.txt': 'secret\n' } });
    const erp = await server.createRepository('erp', { files: { 'erp.txt': 'erp\n' }, submodules: [{ path: 'addons/lib', url: server.url('lib') }] });
    const mixed = await server.createRepository('mixed', {
      files: { 'mixed.txt': 'mixed\n' },
      submodules: [
        { path: 'addons/lib', url: '../lib.git' },
        { path: 'addons/secret', url: '../secret.git' },
      ],
    });
    heads = { inner: inner.head, lib: lib.head, secret: secret.head, erp: erp.head, mixed: mixed.head };
    await server.authorize(key.publicKey, { repos: ['erp', 'lib', 'inner', 'mixed'] });
  });

  it('lists the repository and its nested submodules, all ok with their heads, pinning the host once', async () => {
    const scratch = runDir('verify-tmp');
    const previous = process.env['TMPDIR'];
    process.env['TMPDIR'] = scratch;
    let result: Awaited<ReturnType<typeof verifyRepositories>>;
    try {
      result = await verify(server.url('erp'));
    } finally {
      if (previous === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = previous;
    }
    expect(result.ok).to.equal(true);
    expect(result.repositories).to.deep.equal([
      { url: server.url('erp'), path: null, status: 'ok', head: heads['erp'], message: `readable; its default branch main is at ${heads['erp']}` },
      { url: server.url('lib'), path: 'addons/lib', status: 'ok', head: heads['lib'], message: `readable; its default branch main is at ${heads['lib']}` },
      { url: server.url('inner'), path: 'addons/lib/vendor/inner', status: 'ok', head: heads['inner'], message: `readable; its default branch main is at ${heads['inner']}` },
    ]);
    expect(book.pins).to.have.length(1);
    expect(await readdir(scratch), 'the temporary key folder and shallow fetches are gone').to.deep.equal([]);
  });

  it('names the submodule the key cannot read, with what to do, while the others are ok', async () => {
    const { log, text } = logStream();
    const result = await verify(server.url('mixed'), key.privateKey, { log });
    expect(result.ok).to.equal(false);
    expect(rows(result.repositories)).to.deep.equal([
      { path: null, status: 'ok' },
      { path: 'addons/lib', status: 'ok' },
      { path: 'addons/lib/vendor/inner', status: 'ok' },
      { path: 'addons/secret', status: 'not_found' },
    ]);
    const secret = result.repositories[3]!;
    expect(secret.url).to.equal(server.url('secret'));
    expect(secret.head).to.equal(null);
    expect(secret.message).to.equal(
      `submodule addons/secret of ${server.url('mixed')} (${server.url('secret')}) was not found: check the URL, and that one of the project's SSH keys is a deploy key of it (hosts also answer "not found" to a key without access). Its submodules, if it has any, could not be listed`,
    );
    expect(text(), 'the server’s words are in the log only').to.include('ERROR: Repository not found.');
  });

  it('says the repository refused a wrong key, never showing the key', async () => {
    const stranger = await newKeyPair('stranger');
    const { log, text } = logStream();
    const result = await verify(server.url('erp'), stranger.privateKey, { log });
    expect(result.ok).to.equal(false);
    expect(result.repositories).to.deep.equal([
      {
        url: server.url('erp'),
        path: null,
        status: 'auth_failed',
        head: null,
        message: `the repository refused the project's SSH keys: add the public key of one of them as a deploy key of ${server.url('erp')}. Its submodules, if it has any, could not be listed`,
      },
    ]);
    expect(`${JSON.stringify(result)}${text()}`).to.not.include(stranger.privateKey.trim().split('\n')[1]!);
  });

  it('says when nothing answers at the repository’s port', async () => {
    const closed = server.url('erp').replace(`:${server.port}/`, ':1/');
    const result = await verify(closed);
    expect(result.ok).to.equal(false);
    expect(rows(result.repositories)).to.deep.equal([{ path: null, status: 'unreachable' }]);
    expect(result.repositories[0]!.message).to.equal("no SSH server answered at [127.0.0.1]:1: check the repository's host name and port, and that the platform can reach it. Its submodules, if it has any, could not be listed");
  });

  it('reports a submodule the platform may not read as unreachable with the reason, without contacting it', async () => {
    const refused = await server.createRepository('refused', {
      files: {},
      submodules: [
        { path: 'private-net', url: 'ssh://git@10.1.2.3/acme/lib.git', commit: heads['lib']! },
        { path: 'local', url: '/etc/forja.git', commit: heads['lib']! },
      ],
    });
    await server.authorize(key.publicKey, { repos: ['refused'] });
    const result = await verify(refused.url);
    expect(rows(result.repositories)).to.deep.equal([
      { path: null, status: 'ok' },
      { path: 'private-net', status: 'unreachable' },
      { path: 'local', status: 'unreachable' },
    ]);
    expect(result.repositories[1]!.message).to.equal(
      `the platform may not read it: submodule ssh://git@10.1.2.3/acme/lib.git of ${refused.url}: git may not reach 10.1.2.3: it is a private address; an operator can allow it with FORJA_GIT_ALLOW_HOSTS. Its submodules, if it has any, could not be listed`,
    );
    expect(result.repositories[2]!.message).to.equal(
      `the platform may not read it: submodule /etc/forja.git of ${refused.url}: only a local repository may have local submodules. Its submodules, if it has any, could not be listed`,
    );
  });

  it('says when the commit a parent records is not in the submodule', async () => {
    const dangling = await server.createRepository('dangling', { files: {}, submodules: [{ path: 'lib', url: '../lib.git', commit: heads['secret']! }] });
    await server.authorize(key.publicKey, { repos: ['dangling', 'lib'] });
    const result = await verify(dangling.url);
    expect(rows(result.repositories)).to.deep.equal([
      { path: null, status: 'ok' },
      { path: 'lib', status: 'not_found' },
    ]);
    expect(result.repositories[1]!.head).to.equal(heads['lib']);
    expect(result.repositories[1]!.message).to.match(new RegExp(`^it answers, but not with commit ${heads['secret']} that its parent records for lib`));
  });

  it('refuses a server whose host key changed, naming both fingerprints', async () => {
    const ownBook = memoryBook();
    await withSshSession([{ name: 'deploy', privateKey: key.privateKey }], ownBook, (ssh) => verifyRepositories(server.url('inner'), { ssh, access }));
    const pinned = await server.hostKeyFingerprint();
    await server.regenerateHostKey();
    const result = await withSshSession([{ name: 'deploy', privateKey: key.privateKey }], ownBook, (ssh) => verifyRepositories(server.url('inner'), { ssh, access }));
    expect(rows(result.repositories)).to.deep.equal([{ path: null, status: 'host_key_changed' }]);
    expect(result.repositories[0]!.message).to.include(pinned).and.include(await server.hostKeyFingerprint()).and.include('an admin can forget the pinned key on the project page');
    book = memoryBook(); // the shared book's pin is stale now
  });
});

describe('verifying repositories without ssh', function () {
  this.timeout(30_000);
  const fileAccess = { fileRoots: [tmpdir()], allowHosts: ['127.0.0.1'] };

  it('resolves relative submodule URLs of a local repository the way git does', async () => {
    const lib = await createBareRepo('lib');
    const top = await createBareRepo('top');
    const libHead = await git(lib.dir, 'rev-parse', 'main');
    // A sibling folder's repository, named relatively in .gitmodules.
    const relative = `../../${lib.dir.split('/').slice(-2).join('/')}`;
    const head = await commitAndPush(top, 'main', 'add lib', async (work) => {
      await git(work, 'submodule', 'add', '-q', lib.url, 'lib');
      await git(work, 'config', '--file', '.gitmodules', 'submodule.lib.url', relative);
    });
    const result = await verifyRepositories(top.url, { access: fileAccess });
    expect(result).to.deep.equal({
      ok: true,
      repositories: [
        { url: top.url, path: null, status: 'ok', head, message: `readable; its default branch main is at ${head}` },
        { url: lib.url, path: 'lib', status: 'ok', head: libHead, message: `readable; its default branch main is at ${libHead}` },
      ],
    });
  });

  it('says when a repository does not answer in time, and goes on', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket)).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const url = `git://127.0.0.1:${(silent.address() as AddressInfo).port}/repo.git`;
      const result = await verifyRepositories(url, { access: fileAccess, perRepositoryTimeoutMs: 300 });
      expect(result).to.deep.equal({
        ok: false,
        repositories: [
          {
            url,
            path: null,
            status: 'timeout',
            head: null,
            message: `the host of the repository ${url} did not answer in time: check that the platform can reach it, then try again. Its submodules, if it has any, could not be listed`,
          },
        ],
      });
    } finally {
      silent.close();
      for (const socket of sockets) socket.destroy();
    }
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await verifyRepositories((await createBareRepo('any')).url, { access: fileAccess, signal: controller.signal }).catch((caught: unknown) => caught);
    expect(error).to.have.property('kind', 'aborted');
  });
});
