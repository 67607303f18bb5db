import { expect } from 'chai';
import { admit, allowedDomains } from '#web/auth/oidcAdmission.ts';

describe('identity-provider admission', () => {
  const allowed = allowedDomains(' Example.com,example.org ');

  it('reads the allowed domains lower-cased, and none from an unset or empty setting', () => {
    expect(allowed).to.deep.equal(['example.com', 'example.org']);
    expect(allowedDomains(undefined)).to.deep.equal([]);
    expect(allowedDomains(' , ')).to.deep.equal([]);
  });

  it('admits nobody while no domain is allowed', () => {
    expect(admit({ email: 'ana@example.com', email_verified: true }, [])).to.deep.equal({ kind: 'noDomainsConfigured' });
  });

  it('admits an allowed domain in any case, keeping the address as the provider gave it', () => {
    expect(admit({ email: ' Ana@EXAMPLE.com ', email_verified: true }, allowed)).to.deep.equal({ kind: 'admitted', email: 'Ana@EXAMPLE.com' });
    expect(admit({ email: 'ana@example.org' }, allowed)).to.deep.equal({ kind: 'admitted', email: 'ana@example.org' });
  });

  it('matches the domain exactly: subdomains and look-alikes are other domains', () => {
    for (const email of ['ana@mail.example.com', 'ana@example.com.evil.net', 'ana@notexample.com']) {
      expect(admit({ email }, allowed)).to.deep.include({ kind: 'domainRefused', email });
    }
    expect(admit({ email: 'ana@Foreign.ORG' }, allowed)).to.deep.equal({ kind: 'domainRefused', email: 'ana@Foreign.ORG', domain: 'foreign.org' });
  });

  it('refuses an address the provider says is unverified, as a boolean or a string', () => {
    expect(admit({ email: 'ana@example.com', email_verified: false }, allowed).kind).to.equal('unverified');
    expect(admit({ email: 'ana@example.com', email_verified: 'false' }, allowed).kind).to.equal('unverified');
  });

  it('refuses a missing or malformed address', () => {
    for (const email of [undefined, 42, '', 'ana', 'ana@', '@example.com', 'a@b@example.com', 'ana maria@example.com']) {
      expect(admit({ email }, allowed).kind, String(email)).to.equal('noEmail');
    }
  });
});
