import { expect } from 'chai';
import { debianPackageInstalled, installToolPackages, TOOL_PACKAGES } from '#shared/local/toolPackages.ts';

describe('the tools’ Debian packages for npm start', () => {
  it('installs nothing when every package is there', () => {
    expect(installToolPackages(TOOL_PACKAGES, () => true)).to.deep.equal({ installed: [] });
  });

  it('names what is missing and how to install it, without throwing, when it may not install', function () {
    if (process.getuid?.() === 0) this.skip(); // as root it would really run apt-get
    const outcome = installToolPackages(['prometheus', 'adminer'], (name) => name !== 'adminer');
    expect(outcome).to.deep.equal({ missing: ['adminer'], reason: 'not root: install them with apt-get install adminer' });
  });

  it('reports a failed apt-get instead of throwing, naming the packages', function () {
    if (process.getuid?.() !== 0) this.skip();
    this.timeout(120_000);
    // A package name no archive has: apt-get fails (after one update), and the outcome says so.
    const outcome = installToolPackages(['forja-no-such-package'], () => false);
    expect(outcome).to.deep.equal({ missing: ['forja-no-such-package'], reason: 'apt-get install forja-no-such-package failed (see its output above)' });
  });

  it('asks dpkg whether a package is installed', () => {
    expect(debianPackageInstalled('dpkg')).to.equal(true);
    expect(debianPackageInstalled('forja-no-such-package')).to.equal(false);
  });
});
