import { expect } from 'chai';
import { gitAccessFrom, gitAccessProblem, type GitAccess } from '#shared/git/gitAccess.ts';
import { gitTarget } from '#shared/git/gitTarget.ts';

const NONE: GitAccess = { fileRoots: [], allowHosts: [] };

describe('git URLs as git reads them', () => {
  for (const [url, host] of [
    ['ssh://git@Git.Example.com:2222/acme/erp.git', 'git.example.com'],
    ['git+ssh://git.example.com/acme/erp.git', 'git.example.com'],
    ['git@github.com:acme/erp.git', 'github.com'],
    ['github.com:acme/erp.git', 'github.com'],
    ['[git@git.example.com:2222]:acme/erp.git', 'git.example.com'],
    ['git@[::1]:acme/erp.git', '::1'],
    ['[::ffff:127.0.0.1]:acme/erp.git', '::ffff:127.0.0.1'],
    ['https://user@git.example.com./acme/erp.git', 'git.example.com'],
    ['https://[::1]:8443/acme/erp.git', '::1'],
    ['git://0x7f.1/acme/erp.git', '0x7f.1'],
  ] as const) {
    it(`reads ${url} as host ${host}`, () => expect(gitTarget(url)).to.deep.equal({ kind: 'remote', host }));
  }

  for (const [url, path] of [
    ['file:///srv/git/erp.git', '/srv/git/erp.git'],
    ['file:///srv/git/erp.git/', '/srv/git/erp.git'],
    ['file:///srv/git/%61cme.git', '/srv/git/acme.git'],
    ['file:///srv/git/..%2f..%2fetc', '/etc'],
    ['/srv/git/../../work/main', '/work/main'],
    ['/srv/a:b', '/srv/a:b'],
  ] as const) {
    it(`reads ${url} as the local path ${path}`, () => expect(gitTarget(url)).to.deep.equal({ kind: 'local', path }));
  }

  for (const [url, why] of [
    ['ext::sh -c touch% /tmp/pwned', /remote helper/],
    ['ftp://git.example.com/x.git', /git may not use ftp:\/\/ URLs/],
    ['relative/repo.git', /absolute path/],
    ['file://localhost/srv/git/x.git', /file:\/\/\/absolute\/path/],
    ['file:///srv/%zz', /broken %-escape/],
    ['https://%31%32%37.0.0.1/x.git', /not a host name or address/],
    ['https://１２７.０.０.１/x.git', /not a host name or address/],
    ['https://git.example.com', /no repository path/],
    ['https://git.example.com?x=/y', /no repository path/],
    ['https://git.example.com\\@127.0.0.1/x.git', /no repository path/],
    ['https://[fe80::1%25eth0]/x.git', /not an IPv6 address/],
    ['https://git.example.com:99999999/x.git', /not a port/],
    ['git@[::1:acme/erp.git', /misplaced/],
    [':acme/erp.git', /no host/],
  ] as const) {
    it(`refuses ${url}`, () => expect(gitTarget(url)).to.have.property('reason').that.matches(why));
  }
});

describe('which repositories git may read (issue 10, item 8)', () => {
  const thisMachine = /^git may not reach \S+: it is (this machine|a loopback address \(this machine\)|an unspecified address \(this machine\)); an operator can allow it with FORJA_GIT_ALLOW_HOSTS$/;
  for (const host of ['127.0.0.1', '127.0.0.53', '0x7f.1', '2130706433', '017700000001', '127.1', '0x7f000001', '127.000.000.001', 'localhost', 'LocalHost.', 'erp.localhost', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '0.0.0.0', '0', '[::]']) {
    it(`refuses this machine written as ${host}`, () => {
      for (const url of [`ssh://git@${host}/acme/erp.git`, `https://${host}/acme/erp.git`, `git@${host}:acme/erp.git`, `git://${host}:9418/acme/erp.git`]) {
        expect(gitAccessProblem(url, NONE), url).to.match(thisMachine);
      }
    });
  }

  for (const [host, what] of [
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['192.168.1.10', 'a private address'],
    ['0xc0.0xa8.1.10', 'a private address'],
    ['[fd12::1]', 'a private address'],
    ['169.254.169.254', 'a link-local address'],
    ['[fe80::1]', 'a link-local address'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['[64:ff9b::a01:203]', 'a rfc6052 address, not a public one'],
  ] as const) {
    it(`refuses ${host}: ${what}`, () => expect(gitAccessProblem(`https://${host}/acme/erp.git`, NONE)).to.match(new RegExp(`: it is ${what.replace(/[()]/g, '\\$&')}; `)));
  }

  it('refuses a host that looks like an address but is none', () => {
    expect(gitAccessProblem('https://08.0.0.1/x.git', NONE)).to.equal('08.0.0.1 is neither a host name nor an address');
  });

  it('lets public hosts and names through (the executor resolves names)', () => {
    for (const url of ['git@github.com:acme/erp.git', 'https://93.184.215.14/acme/erp.git', 'ssh://git@[2606:4700::1111]/acme/erp.git', 'https://0127.0.0.1/x.git']) {
      expect(gitAccessProblem(url, NONE), url).to.equal(null);
    }
  });

  it('lets listed hosts through: by name, by address in any form, by range', () => {
    const access = gitAccessFrom({ FORJA_GIT_ALLOW_HOSTS: 'Git.Internal., 127.0.0.1, [::1], 10.0.0.0/8' });
    expect(access.allowHosts).to.deep.equal(['git.internal', '127.0.0.1', '::1', '10.0.0.0/8']);
    for (const url of ['ssh://git@git.internal/x.git', 'git://0x7f.1/x.git', 'https://[::1]/x.git', 'https://[::ffff:127.0.0.1]/x.git', 'git@10.200.0.7:x.git']) {
      expect(gitAccessProblem(url, access), url).to.equal(null);
    }
    expect(gitAccessProblem('https://192.168.0.1/x.git', access)).to.match(/a private address/);
    expect(gitAccessProblem('https://localhost/x.git', access)).to.match(/it is this machine/);
  });

  it('refuses local repositories unless an operator listed their folder', () => {
    expect(gitAccessProblem('file:///srv/git/erp.git', NONE)).to.equal('local repositories (file:// or a path) are off on this platform: an operator can allow folders with FORJA_GIT_FILE_ROOTS');
    const access = gitAccessFrom({ FORJA_GIT_FILE_ROOTS: '/srv/git/, /home/git' });
    expect(access.fileRoots).to.deep.equal(['/srv/git', '/home/git']);
    for (const url of ['file:///srv/git/erp.git', '/home/git/a/b.git', 'file:///srv/git']) expect(gitAccessProblem(url, access), url).to.equal(null);
    for (const url of ['file:///srv/gitx/erp.git', 'file:///srv/git/../../work/main', 'file:///srv/git/%2e%2e/secret.git', '/work/main', 'file:///']) {
      expect(gitAccessProblem(url, access), url).to.match(/is outside the folders local repositories may come from \(FORJA_GIT_FILE_ROOTS\)$/);
    }
  });

  it('says which setting is wrong', () => {
    expect(() => gitAccessFrom({ FORJA_GIT_ALLOW_HOSTS: '10.0.0.0/99' })).to.throw('configuration: FORJA_GIT_ALLOW_HOSTS has a malformed address range: 10.0.0.0/99');
    expect(() => gitAccessFrom({ FORJA_GIT_FILE_ROOTS: 'srv/git' })).to.throw('configuration: FORJA_GIT_FILE_ROOTS takes absolute folders, not srv/git');
    expect(gitAccessFrom({})).to.deep.equal({ fileRoots: [], allowHosts: [] });
  });
});
