import type { LookupAddress, LookupOptions } from 'node:dns';
import { expect } from 'chai';
import { ConfigError } from '#shared/config/config.ts';
import { displayUrl } from '#shared/net/displayUrl.ts';
import { DEFAULT_PULL_MAX_BYTES, pullSettingsFrom } from '#shared/net/pullSettings.ts';
import { pullUrlProblem } from '#shared/net/pullUrl.ts';
import { HostCheckError, pinnedLookup, resolveAndCheck, type HostLookup } from '#shared/net/resolveAndCheck.ts';

const HOW_TO_ALLOW = /an operator can allow it with FORJA_PULL_ALLOW_HOSTS$/;

describe('which pull_url may be downloaded', () => {
  for (const url of ['https://files.example.com/dump.zip', 'http://files.example.com:8080/a/b?x=1', 'https://alice:pw@files.example.com/dump.zip', 'https://93.184.216.34/x', 'https://[2606:4700::1]/x']) {
    it(`takes ${displayUrl(url)}`, () => expect(pullUrlProblem(url, [])).to.equal(null));
  }

  for (const [url, why] of [
    ['file:///etc/passwd', /only http:\/\/ and https:\/\/ URLs can be downloaded, not file:\/\//],
    ['ftp://files.example.com/dump.zip', /not ftp:\/\//],
    ['gopher://files.example.com:70/_x', /not gopher:\/\//],
    ['javascript:alert(1)', /not javascript:\/\//],
    ['data:text/plain,x', /not data:\/\//],
    ['files.example.com/dump.zip', /^not a valid URL$/],
    ['http://[fe80::1%25eth0]/x', /^not a valid URL$/],
  ] as const) {
    it(`refuses ${url}`, () => expect(pullUrlProblem(url, [])).to.match(why));
  }

  for (const [host, what] of [
    ['127.0.0.1', 'a loopback address'],
    ['0x7f.1', 'a loopback address'],
    ['2130706433', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['[::ffff:127.0.0.1]', 'a loopback address'],
    ['0.0.0.0', 'an unspecified address'],
    ['[::]', 'an unspecified address'],
    ['10.0.0.5', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['[fd12::1]', 'a private (unique-local) address'],
    ['[fe80::1]', 'a link-local address'],
    ['224.0.0.1', 'a multicast address'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['[fd00:ec2::254]', 'a cloud metadata address'],
    ['[::ffff:169.254.169.254]', 'a cloud metadata address'],
    ['100.100.100.200', 'a cloud metadata address'],
  ] as const) {
    it(`refuses ${host}: ${what}`, () => {
      const problem = pullUrlProblem(`http://user:pw@${host}:8080/dump.zip`, []);
      expect(problem).to.match(/^downloads may not reach \S+: it is /).and.include(what);
    });
  }

  it('refuses the names of this machine, whatever DNS says', () => {
    for (const host of ['localhost', 'LocalHost.', 'erp.localhost', 'ip6-localhost']) {
      expect(pullUrlProblem(`http://${host}/x`, []), host).to.match(/it is this machine/).and.match(HOW_TO_ALLOW);
    }
  });

  it('takes what an operator listed: a name, an address, a range', () => {
    expect(pullUrlProblem('http://localhost:8000/x', ['localhost'])).to.equal(null);
    expect(pullUrlProblem('http://0x7f.1:8000/x', ['127.0.0.1'])).to.equal(null);
    expect(pullUrlProblem('http://[::1]/x', ['::1'])).to.equal(null);
    expect(pullUrlProblem('http://10.1.2.3/x', ['10.0.0.0/8'])).to.equal(null);
    expect(pullUrlProblem('http://10.1.2.3/x', ['192.168.0.0/16'])).to.match(HOW_TO_ALLOW);
  });

  it('opens a metadata address only when that very address is listed', () => {
    expect(pullUrlProblem('http://169.254.169.254/latest/', ['169.254.0.0/16'])).to.match(/cloud metadata address; only listing that very address/);
    expect(pullUrlProblem('http://169.254.169.254/latest/', ['169.254.169.254'])).to.equal(null);
    expect(pullUrlProblem('http://[fd00:ec2::254]/latest/', ['fd00::/8'])).to.match(/cloud metadata/);
  });
});

describe('a URL as it may be shown', () => {
  for (const [url, shown] of [
    ['https://alice:s3cret@files.example.com/dump.zip', 'https://***@files.example.com/dump.zip'],
    ['https://ghp_token1234@files.example.com/x', 'https://***@files.example.com/x'],
    ['https://files.example.com/x?token=abc&name=dump.zip', 'https://files.example.com/x?token=***&name=dump.zip'],
    ['https://b.s3.amazonaws.com/k?X-Amz-Signature=ff00&X-Amz-Security-Token=zz&X-Amz-Expires=60', 'https://b.s3.amazonaws.com/k?X-Amz-Signature=***&X-Amz-Security-Token=***&X-Amz-Expires=60'],
    ['https://a.blob.core.windows.net/c/d?sv=2022&sig=abc%2Bd&se=1', 'https://a.blob.core.windows.net/c/d?sv=2022&sig=***&se=1'],
    ['https://x.example/?api_key=1&PASSWORD=2&client_secret=3&flag', 'https://x.example/?api_key=***&PASSWORD=***&client_secret=***&flag'],
    ['https://files.example.com/dump.zip', 'https://files.example.com/dump.zip'],
    ['https://sso.example/go?next=https%3A%2F%2Fbob%3Apw%40files.example%2Fx&a=https://files.example/', 'https://sso.example/go?next=https%3A%2F%2F***%40files.example%2Fx&a=https://files.example/'],
    ['https://alice:pw@[bad/x', 'https://***@[bad…'],
  ] as const) {
    it(`shows ${shown}`, () => expect(displayUrl(url)).to.equal(shown));
  }
});

describe('pull settings', () => {
  it('defaults to public hosts only and 50 GiB', () => {
    expect(pullSettingsFrom({})).to.deep.equal({ allow: [], maxBytes: DEFAULT_PULL_MAX_BYTES });
    expect(DEFAULT_PULL_MAX_BYTES).to.equal(50 * 2 ** 30);
  });

  it('reads the allow list as FORJA_GIT_ALLOW_HOSTS is read, and the cap as a number or text', () => {
    expect(pullSettingsFrom({ FORJA_PULL_ALLOW_HOSTS: 'Files.Internal., 127.0.0.1, [::1], 10.0.0.0/8', FORJA_PULL_MAX_BYTES: ' 1048576 ' })).to.deep.equal({
      allow: ['files.internal', '127.0.0.1', '::1', '10.0.0.0/8'],
      maxBytes: 1_048_576,
    });
    expect(pullSettingsFrom({ FORJA_PULL_MAX_BYTES: 5 }).maxBytes).to.equal(5);
  });

  it('names the setting that is wrong', () => {
    expect(() => pullSettingsFrom({ FORJA_PULL_ALLOW_HOSTS: '10.0.0.0/99' })).to.throw(ConfigError, 'configuration: FORJA_PULL_ALLOW_HOSTS has a malformed address range: 10.0.0.0/99');
    for (const value of ['0', '-1', '1.5', '10GB', 0, 2 ** 60]) {
      expect(() => pullSettingsFrom({ FORJA_PULL_MAX_BYTES: value }), String(value)).to.throw(ConfigError, /^configuration: FORJA_PULL_MAX_BYTES must be a whole number of bytes/);
    }
  });
});

describe('resolving a host, then checking every address it resolves to', () => {
  function lookupOf(answers: Record<string, string[]>): HostLookup & { calls: string[] } {
    const calls: string[] = [];
    return Object.assign(async (host: string) => {
      calls.push(host);
      const answer = answers[host];
      if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return answer;
    }, { calls });
  }

  async function refusal(promise: Promise<unknown>): Promise<HostCheckError> {
    try {
      await promise;
    } catch (error) {
      expect(error).to.be.instanceOf(HostCheckError);
      return error as HostCheckError;
    }
    throw new Error('expected a HostCheckError');
  }

  it('takes a name whose every address is public, and says which ones a connection may use', async () => {
    const lookup = lookupOf({ 'files.example.com': ['93.184.216.34', '2606:4700::1'] });
    expect(await resolveAndCheck('Files.Example.com.', [], lookup)).to.deep.equal({
      host: 'files.example.com',
      addresses: [{ address: '93.184.216.34', family: 4 }, { address: '2606:4700::1', family: 6 }],
    });
    expect(lookup.calls).to.deep.equal(['files.example.com']);
  });

  for (const [address, what] of [
    ['127.0.0.1', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['0.0.0.0', 'an unspecified address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['fd12:3456::1', 'a private (unique-local) address'],
    ['169.254.1.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['239.1.1.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['169.254.170.2', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['::ffff:169.254.169.254', 'a cloud metadata address'],
  ] as const) {
    it(`refuses a name that resolves to ${address} (${what}) among public ones`, async () => {
      const error = await refusal(resolveAndCheck('files.example.com', [], lookupOf({ 'files.example.com': ['93.184.216.34', address] })));
      expect(error.kind).to.equal('refused');
      expect(error.message).to.match(/^downloads may not reach files\.example\.com: it resolves to /).and.include(what);
    });
  }

  it('takes a listed name wherever it resolves, but never to a metadata address not listed itself', async () => {
    const lookup = lookupOf({ 'files.internal': ['10.1.2.3'], 'meta.internal': ['169.254.169.254'] });
    expect((await resolveAndCheck('files.internal', ['files.internal'], lookup)).addresses).to.deep.equal([{ address: '10.1.2.3', family: 4 }]);
    expect((await resolveAndCheck('files.internal', ['10.0.0.0/8'], lookup)).addresses).to.deep.equal([{ address: '10.1.2.3', family: 4 }]);
    expect((await refusal(resolveAndCheck('meta.internal', ['meta.internal', '169.254.0.0/16'], lookup))).message).to.match(/cloud metadata address/);
    expect((await resolveAndCheck('meta.internal', ['169.254.169.254'], lookup)).addresses).to.have.length(1);
  });

  it('checks an address host as it is, without DNS', async () => {
    const lookup = lookupOf({});
    expect(await resolveAndCheck('[::1]', ['::1'], lookup)).to.deep.equal({ host: '::1', addresses: [{ address: '::1', family: 6 }] });
    expect((await refusal(resolveAndCheck('127.0.0.1', [], lookup))).message).to.match(HOW_TO_ALLOW);
    expect((await refusal(resolveAndCheck('localhost', [], lookup))).message).to.match(/it is this machine/);
    expect(lookup.calls).to.deep.equal([]);
  });

  it('says a name that does not resolve is unresolved, not refused', async () => {
    const error = await refusal(resolveAndCheck('nowhere.example', [], lookupOf({ 'empty.example': [] })));
    expect(error.kind).to.equal('unresolved');
    expect(error.message).to.equal('cannot resolve nowhere.example: ENOTFOUND');
    expect((await refusal(resolveAndCheck('empty.example', [], lookupOf({ 'empty.example': [] })))).kind).to.equal('unresolved');
  });

  it('pins the connection: the lookup node:net is given answers with the checked addresses only, whatever it is asked', () => {
    const lookup = pinnedLookup({ host: 'files.example.com', addresses: [{ address: '93.184.216.34', family: 4 }, { address: '2606:4700::1', family: 6 }] });
    const ask = (options: LookupOptions) => {
      let answer: unknown;
      lookup('anything.else', options, (error, address, family) => (answer = error ? (error as NodeJS.ErrnoException).code : { address, family }));
      return answer;
    };
    expect(ask({})).to.deep.equal({ address: '93.184.216.34', family: 4 });
    expect(ask({ family: 6 })).to.deep.equal({ address: '2606:4700::1', family: 6 });
    expect(ask({ family: 'IPv6' })).to.deep.equal({ address: '2606:4700::1', family: 6 });
    expect((ask({ all: true }) as { address: LookupAddress[] }).address).to.deep.equal([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
    const v4Only = pinnedLookup({ host: 'files.example.com', addresses: [{ address: '93.184.216.34', family: 4 }] });
    let code: string | undefined;
    v4Only('files.example.com', { family: 6 }, (error) => (code = (error as NodeJS.ErrnoException | null)?.code));
    expect(code).to.equal('ENOTFOUND');
  });
});
