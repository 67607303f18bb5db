import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { checkoutCommit, GitSourceError, resolveBranchHead, type GitOptions } from '#shared/git/gitSource.ts';
import { HostKeyChangedError, scanHostKeys, type HostKey } from '#shared/git/hostKeys.ts';
import { withSshSession, type HostKeyBook } from '#shared/git/sshSession.ts';
import { git } from '#test/support/bareRepo.ts';
import { runDir } from '#test/support/runDir.ts';
import { newKeyPair, startSshGitServer, type SshGitServer } from '#test/support/sshGitServer.ts';

const access = { fileRoots: [], allowHosts: ['127.0.0.1'] };

/** A book kept in memory, recording each pin. */
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

async function failure(promise: Promise<unknown>): Promise<GitSourceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(GitSourceError);
    return error as GitSourceError;
  }
  throw new Error('expected a GitSourceError');
}

describe('git through ssh with a session’s keys and pinned host keys (real sshd)', function () {
  this.timeout(60_000);
  let server: SshGitServer;
  let key: { privateKey: string; publicKey: string };
  let lib: { url: string; head: string };
  let erp: { url: string; head: string };

  before(async () => {
    server = await startSshGitServer();
    key = await newKeyPair('erp-deploy');
    lib = await server.createRepository('lib', { files: { 'lib.txt': 'the library\n' } });
    erp = await server.createRepository('erp', { files: { 'erp.txt': 'the erp\n' }, submodules: [{ path: 'addons/lib', url: '../lib.git' }] });
    await server.authorize(key.publicKey, { repos: ['erp', 'lib'] });
  });

  it('checks out a private repository and its private submodule, pinning the host key on first contact only', async () => {
    const book = memoryBook();
    const dir = join(runDir('ssh-checkout'), 'src');
    // Without its final newline, as a key pasted in a form arrives; the session adds it back.
    const identities = [{ name: 'erp-deploy', privateKey: key.privateKey.trimEnd() }];
    const { log, text } = logStream();
    const head = await withSshSession(identities, book, async (ssh) => {
      const options: GitOptions = { ssh, access, log };
      expect(await resolveBranchHead(erp.url, 'main', options)).to.equal(erp.head);
      return checkoutCommit(erp.url, 'main', erp.head, dir, options);
    });
    expect(head).to.equal(erp.head);
    expect(await readFile(join(dir, 'erp.txt'), 'utf8')).to.equal('the erp\n');
    expect(await readFile(join(dir, 'addons/lib/lib.txt'), 'utf8')).to.equal('the library\n');
    expect(await git(join(dir, 'addons/lib'), 'rev-parse', 'HEAD')).to.equal(lib.head);
    expect(book.pins, 'one pin for the one server').to.have.length(1);
    expect(book.pins[0]).to.include({ host: '127.0.0.1', port: server.port });
    expect(book.pins[0]!.keys.map((hostKey) => hostKey.fingerprint)).to.include(await server.hostKeyFingerprint());
    expect(text()).to.not.include(key.privateKey.trim().split('\n')[1]!);

    await withSshSession(identities, book, (ssh) => resolveBranchHead(erp.url, 'main', { ssh, access }));
    expect(book.pins, 'the second contact matched the pin').to.have.length(1);
  });

  it('keeps the keys in a private folder while it runs and removes it after success and after failure', async () => {
    const book = memoryBook();
    let folder = '';
    await withSshSession([{ name: 'a', privateKey: key.privateKey }, { name: 'b', privateKey: key.privateKey }], book, async (ssh) => {
      folder = dirname(ssh.knownHostsFile);
      expect(statSync(folder).mode & 0o777).to.equal(0o700);
      expect(ssh.keyFiles).to.have.length(2);
      for (const file of ssh.keyFiles) {
        expect(dirname(file)).to.equal(folder);
        expect(statSync(file).mode & 0o777).to.equal(0o600);
        expect(await readFile(file, 'utf8')).to.equal(key.privateKey.endsWith('\n') ? key.privateKey : `${key.privateKey}\n`);
      }
    });
    expect(existsSync(folder), 'removed after success').to.equal(false);

    const thrown = new Error('the step failed');
    const error = await withSshSession([{ name: 'a', privateKey: key.privateKey }], book, async (ssh) => {
      folder = dirname(ssh.knownHostsFile);
      throw thrown;
    }).catch((caught: unknown) => caught);
    expect(error).to.equal(thrown);
    expect(existsSync(folder), 'removed after failure').to.equal(false);
  });

  it('says in plain words that the repository refused a wrong key, without the key or the server’s words', async () => {
    const stranger = await newKeyPair('stranger');
    const { log, text } = logStream();
    let folder = '';
    const error = await failure(
      withSshSession([{ name: 'stranger', privateKey: stranger.privateKey }], memoryBook(), (ssh) => {
        folder = dirname(ssh.knownHostsFile);
        return resolveBranchHead(erp.url, 'main', { ssh, access, log });
      }),
    );
    expect(error.kind).to.equal('auth_failed');
    expect(error.message).to.equal(`the repository refused the project's SSH keys: add the public key of one of them as a deploy key of ${erp.url}`);
    expect(text()).to.include('Permission denied (publickey)');
    const secretLine = stranger.privateKey.trim().split('\n')[1]!;
    expect(`${error.message}${error.stderr}${text()}`).to.not.include(secretLine);
    expect(existsSync(folder), 'removed after failure').to.equal(false);
  });

  it('fails as auth_failed when the session has no key (ssh offers none, not the platform user’s own)', async () => {
    const { log, text } = logStream();
    const error = await failure(withSshSession([], memoryBook(), (ssh) => resolveBranchHead(erp.url, 'main', { ssh, access, log })));
    expect(error.kind).to.equal('auth_failed');
    expect(text()).to.include('Permission denied (publickey)');
  });

  it('names the submodule the key cannot read', async () => {
    const partial = await newKeyPair('erp-only');
    await server.authorize(partial.publicKey, { repos: ['erp'] });
    const error = await failure(
      withSshSession([{ name: 'erp-only', privateKey: partial.privateKey }], memoryBook(), (ssh) =>
        checkoutCommit(erp.url, 'main', erp.head, join(runDir('ssh-checkout'), 'src'), { ssh, access }),
      ),
    );
    expect(error.kind).to.equal('not_found');
    expect(error.message).to.equal(
      `submodule addons/lib of ${erp.url} (${server.url('lib')}) was not found: check the URL, and that one of the project's SSH keys is a deploy key of it (hosts also answer "not found" to a key without access)`,
    );
  });

  it('refuses a host whose key changed, naming both fingerprints, before git runs', async () => {
    const book = memoryBook();
    const identities = [{ name: 'erp-deploy', privateKey: key.privateKey }];
    await withSshSession(identities, book, (ssh) => resolveBranchHead(erp.url, 'main', { ssh, access }));
    const pinned = await server.hostKeyFingerprint();
    await server.regenerateHostKey();
    const presented = await server.hostKeyFingerprint();
    expect(presented).to.not.equal(pinned);
    const { log, text } = logStream();
    const error = await failure(withSshSession(identities, book, (ssh) => checkoutCommit(erp.url, 'main', erp.head, join(runDir('ssh-checkout'), 'src'), { ssh, access, log })));
    expect(error).to.be.instanceOf(HostKeyChangedError);
    expect(error.kind).to.equal('host_key_changed');
    expect(error.message).to.include(`[127.0.0.1]:${server.port}`).and.include(pinned).and.include(presented).and.include('an admin can forget the pinned key on the project page');
    expect(text(), 'git never ran').to.equal('');
    expect(book.pins).to.have.length(1);
  });

  it('lets ssh trust only hosts the check vouched for', async () => {
    // A check that lets everything through without writing known_hosts: ssh itself must refuse.
    const error = await failure(
      withSshSession([{ name: 'erp-deploy', privateKey: key.privateKey }], memoryBook(), (ssh) =>
        resolveBranchHead(erp.url, 'main', { ssh: { ...ssh, checkHost: async () => undefined }, access }),
      ),
    );
    expect(error.kind).to.equal('host_key_changed');
  });

  it('says when no SSH server answers', async () => {
    const closed = server.url('erp').replace(`:${server.port}/`, ':1/');
    const error = await failure(withSshSession([], memoryBook(), (ssh) => resolveBranchHead(closed, 'main', { ssh, access })));
    expect(error.kind).to.equal('unreachable');
    expect(error.message).to.equal("no SSH server answered at [127.0.0.1]:1: check the repository's host name and port, and that the platform can reach it");
  });

  it('bounds the host-key scan of a server that accepts connections and never answers', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket)).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const port = (silent.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const url = `ssh://git@127.0.0.1:${port}/erp.git`;
      const error = await failure(withSshSession([], memoryBook(), (ssh) => resolveBranchHead(url, 'main', { ssh, access }), { scanTimeoutMs: 500 }));
      expect(error.kind).to.equal('timeout');
      expect(error.message).to.equal(`reading the SSH host keys of [127.0.0.1]:${port} timed out`);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      expect((await failure(scanHostKeys('127.0.0.1', port, { signal: controller.signal }))).kind).to.equal('aborted');
      expect(Date.now() - started).to.be.below(3000);
    } finally {
      silent.close();
      for (const socket of sockets) socket.destroy();
    }
  });

  it('refuses to scan what is not a host and port', async () => {
    expect((await failure(scanHostKeys('-oProxyCommand=x', 22))).kind).to.equal('invalid');
    expect((await failure(scanHostKeys('127.0.0.1', 0))).kind).to.equal('invalid');
  });

  it('refuses an identity without key text, without echoing anything of it', async () => {
    const error = await failure(withSshSession([{ name: 'empty', privateKey: ' \n' }], memoryBook(), async () => 'unused'));
    expect(error.kind).to.equal('invalid');
    expect(error.message).to.equal('the SSH key "empty" has no private key text');
  });
});
