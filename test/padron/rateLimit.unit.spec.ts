import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { clientAddress, FixedWindowRateLimit } from '#services/padron/http/rateLimit.ts';

describe('padrón rate limit', () => {
  it('allows the limit per client and window, then refuses with Retry-After', () => {
    let now = 120_000; // the start of a 60 s window
    const limit = new FixedWindowRateLimit(2, 60, () => now);
    expect(limit.take('a').headers).to.deep.equal({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1', 'ratelimit-reset': '60', 'ratelimit-policy': '2;w=60' });
    expect(limit.take('a').allowed).to.equal(true);
    now += 15_500;
    const refused = limit.take('a');
    expect(refused.allowed).to.equal(false);
    expect(refused.headers).to.include({ 'ratelimit-remaining': '0', 'ratelimit-reset': '45', 'retry-after': '45' });
    expect(limit.take('b').allowed, 'another client has its own budget').to.equal(true);
    now = 180_000;
    expect(limit.take('a').allowed, 'a new window starts afresh').to.equal(true);
  });

  it('is off at 0', () => {
    const limit = new FixedWindowRateLimit(0, 60);
    for (let i = 0; i < 5; i++) expect(limit.take('a')).to.deep.equal({ allowed: true, headers: {} });
  });

  const request = (forwarded: string | undefined, socket = '10.0.0.1') =>
    ({ headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }, socket: { remoteAddress: socket } }) as unknown as IncomingMessage;

  it('uses the socket address unless proxies are trusted', () => {
    expect(clientAddress(request('1.2.3.4'), 0)).to.equal('10.0.0.1');
  });

  it('takes the address the trusted proxies saw, not what the client wrote', () => {
    expect(clientAddress(request('6.6.6.6, 1.2.3.4'), 1)).to.equal('1.2.3.4');
    expect(clientAddress(request('6.6.6.6, 1.2.3.4, 10.0.0.2'), 2)).to.equal('1.2.3.4');
    expect(clientAddress(request(undefined), 1)).to.equal('10.0.0.1');
    expect(clientAddress(request('1.2.3.4'), 5), 'more hops than entries: the farthest one').to.equal('1.2.3.4');
  });
});
