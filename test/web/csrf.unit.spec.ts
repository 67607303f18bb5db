import { expect } from 'chai';
import type { Request } from 'express';
import { csrfTokenMatches } from '#web/http/csrf.ts';

const TOKEN = 'abcdefghijklmnopqrstuvwxyz012345';
const requestWith = (csrfToken?: string) => ({ session: csrfToken === undefined ? undefined : { csrfToken } }) as unknown as Request;

describe('web: comparing CSRF tokens', () => {
  it('accepts the session’s token', () => {
    expect(csrfTokenMatches(requestWith(TOKEN), TOKEN)).to.equal(true);
  });

  it('refuses, without throwing, a token of as many characters but more bytes (issue 10, item 3)', () => {
    expect(() => csrfTokenMatches(requestWith(TOKEN), 'é'.repeat(TOKEN.length))).to.not.throw();
    expect(csrfTokenMatches(requestWith(TOKEN), 'é'.repeat(TOKEN.length))).to.equal(false);
    expect(csrfTokenMatches(requestWith(TOKEN), 'é'.repeat(TOKEN.length / 2))).to.equal(false);
  });

  it('refuses a shorter, a longer and an empty token, and any token without a session token', () => {
    for (const presented of [TOKEN.slice(1), `${TOKEN}x`, '']) expect(csrfTokenMatches(requestWith(TOKEN), presented), presented).to.equal(false);
    expect(csrfTokenMatches(requestWith(), TOKEN)).to.equal(false);
    expect(csrfTokenMatches(requestWith(), '')).to.equal(false);
  });
});
