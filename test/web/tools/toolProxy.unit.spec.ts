import { expect } from 'chai';
import { toolContentSecurityPolicy, withoutSessionCookie } from '#web/tools/toolProxy.ts';

describe('tool proxy helpers', () => {
  it('drops only Forja\'s session cookie from what a tool receives, and the header when nothing is left', () => {
    expect(withoutSessionCookie('forja.sid=s%3Aabc.sig')).to.equal(undefined);
    expect(withoutSessionCookie(undefined)).to.equal(undefined);
    expect(withoutSessionCookie('a=1; forja.sid=s%3Aabc.sig;b=2')).to.equal('a=1; b=2');
    expect(withoutSessionCookie('forja.sidecar=1; xforja.sid=2')).to.equal('forja.sidecar=1; xforja.sid=2');
  });

  it('gives a tool a same-origin policy with only the script sources it asks for', () => {
    expect(toolContentSecurityPolicy()).to.include("script-src 'self';");
    expect(toolContentSecurityPolicy(["'unsafe-eval'"])).to.include("script-src 'self' 'unsafe-eval';");
    expect(toolContentSecurityPolicy()).to.include("default-src 'self'").and.include("frame-ancestors 'self'").and.include("object-src 'none'");
  });
});
