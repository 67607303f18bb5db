import { expect } from 'chai';
import { toolHost, toolLabel } from '#web/tools/origin/toolHosts.ts';
import { TOKEN_TTL_MS, toolTokens } from '#web/tools/origin/toolTokens.ts';

describe('tool tokens and hosts (web/tools/origin)', () => {
  const claims = { user: 'u1', kind: 'code', slug: 'acme', host: 'code-acme.tools.localhost' };

  it('redeems a token once, before it expires, on its host only; rejects a changed one', () => {
    let now = 1_000_000;
    const tokens = toolTokens(Buffer.alloc(32, 1), () => now);
    const token = tokens.mint(claims);
    expect(tokens.redeem(token, 'code-other.tools.localhost')).to.equal(null);
    const [body, mac] = token.split('.');
    const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), slug: 'other' })).toString('base64url');
    expect(tokens.redeem(`${changed}.${mac}`, claims.host)).to.equal(null);
    expect(tokens.redeem(token, claims.host)).to.deep.equal(claims);
    expect(tokens.redeem(token, claims.host)).to.equal(null);
    const late = tokens.mint(claims);
    now += TOKEN_TTL_MS + 1;
    expect(tokens.redeem(late, claims.host)).to.equal(null);
    expect(toolTokens(Buffer.alloc(32, 2)).redeem(tokens.mint(claims), claims.host), 'another key').to.equal(null);
    expect(tokens.readCookie(tokens.mint(claims), claims.host), 'a token is no cookie').to.equal(null);
    expect(tokens.readCookie(tokens.cookie(claims), claims.host)).to.deep.equal(claims);
  });

  it('keeps a host label within 63 characters without two slugs sharing one', () => {
    expect(toolHost('mail', undefined, { domain: 'tools.localhost', port: 8084 })).to.equal('mail.tools.localhost');
    expect(toolLabel('dbadmin', 'acme-prod')).to.equal('dbadmin-acme-prod');
    const long = `${'a'.repeat(30)}-${'b'.repeat(33)}`;
    const label = toolLabel('dbadmin', long);
    expect(label.length).to.be.at.most(63);
    expect(label).to.match(/^dbadmin-a+-b*--[0-9a-f]{10}$/);
    expect(toolLabel('dbadmin', `${long.slice(0, -1)}c`)).to.not.equal(label);
  });
});
