import { expect } from 'chai';
import { endpointName, sshEndpoint } from '#shared/git/sshEndpoint.ts';

describe('the ssh server of a repository URL', () => {
  for (const [url, host, port] of [
    ['ssh://git@github.com/acme/erp.git', 'github.com', 22],
    ['ssh://git@127.0.0.1:2222/srv/erp.git', '127.0.0.1', 2222],
    ['git+ssh://Git.Example.COM:2200/erp.git', 'git.example.com', 2200],
    ['ssh+git://git@[::1]:2222/erp.git', '::1', 2222],
    ['ssh://[::1]/erp.git', '::1', 22],
    ['git@github.com:acme/erp.git', 'github.com', 22],
    ['github.com:acme/erp.git', 'github.com', 22],
    ['[git@127.0.0.1:2222]:erp.git', '127.0.0.1', 2222],
    ['[127.0.0.1:2222]:erp.git', '127.0.0.1', 2222],
    ['git@[::1]:erp.git', '::1', 22],
  ] as const) {
    it(`is ${host} port ${port} for ${url}`, () => expect(sshEndpoint(url)).to.deep.equal({ host, port }));
  }

  for (const url of ['https://github.com/acme/erp.git', 'git://127.0.0.1/erp.git', 'file:///srv/erp.git', '/srv/erp.git', 'ext::sh -c x', 'ftp://h/x.git']) {
    it(`is none for ${url}`, () => expect(sshEndpoint(url)).to.equal(null));
  }

  it('names an endpoint as ssh does in known_hosts', () => {
    expect(endpointName({ host: 'github.com', port: 22 })).to.equal('github.com');
    expect(endpointName({ host: '127.0.0.1', port: 2222 })).to.equal('[127.0.0.1]:2222');
  });
});
