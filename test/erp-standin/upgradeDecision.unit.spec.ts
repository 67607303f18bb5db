import { expect } from 'chai';
import { decideUpgrade, type UpgradeInputs } from '#services/erp-standin/upgradeDecision.ts';
import { adaptVersion, compareVersions, folderVersion, seriesOf } from '#services/erp-standin/version.ts';

describe('ERP stand-in versions', () => {
  it('adapts manifest versions and reads migration folders as the real ERP does', () => {
    expect(adaptVersion('17.0', '1.3')).to.equal('17.0.1.3');
    expect(adaptVersion('17.0', '17.0.1.0.0')).to.equal('17.0.1.0.0');
    expect(adaptVersion('17.0', '16.0.1.0.0'), 'an addon left at its 16.0 manifest').to.equal('17.0.16.0.1.0.0');
    expect(folderVersion('17.0', '1.3')).to.equal('17.0.1.3');
    expect(folderVersion('17.0', '1.0.0')).to.equal('17.0.1.0.0');
    expect(folderVersion('17.0', '17.0.1.3')).to.equal('17.0.1.3');
    expect(folderVersion('17.0', '0.0.0')).to.equal('0.0.0');
  });

  it('orders versions numerically and knows their series', () => {
    expect(['17.0.1.10', '16.0.1.3', '17.0.1.9', '17.0.1'].sort(compareVersions)).to.deep.equal(['16.0.1.3', '17.0.1', '17.0.1.9', '17.0.1.10']);
    expect(seriesOf('16.0.1.3')).to.equal('16.0');
    expect(seriesOf('1.0')).to.equal(undefined);
    expect(seriesOf(null)).to.equal(undefined);
  });
});

describe('ERP stand-in upgrade decision', () => {
  const openupgrade: UpgradeInputs = { database: 'db', server: '17.0', series: ['16.0', '17.0'], updating: true, upgradePath: ['/scripts'], load: ['base', 'web', 'openupgrade_framework'] };

  it('migrates from the oldest series when it is one major version below', () => {
    expect(decideUpgrade(openupgrade)).to.deep.equal({ kind: 'migrate', from: '16.0', to: '17.0' });
  });

  it('refuses to skip versions or to go back', () => {
    expect(decideUpgrade({ ...openupgrade, server: '18.0' })).to.include({ kind: 'refused' }).and.have.property('message').that.includes('skipping versions is not supported');
    expect(decideUpgrade({ ...openupgrade, series: ['16.0', '18.0'] })).to.deep.equal({ kind: 'refused', message: 'database db has modules at 18.0, newer than this server (17.0)' });
  });

  it('migrates nothing, saying so, without an upgrade path, without the framework or without -u', () => {
    expect(decideUpgrade({ ...openupgrade, upgradePath: [] })).to.include({ kind: 'not-migrated', level: 'WARNING' });
    expect(decideUpgrade({ ...openupgrade, load: ['base', 'web'] })).to.include({ kind: 'not-migrated', level: 'ERROR' });
    expect(decideUpgrade({ ...openupgrade, updating: false })).to.include({ kind: 'not-migrated', level: 'WARNING' });
  });

  it('is a plain update when everything is at the server version or no version is known', () => {
    expect(decideUpgrade({ ...openupgrade, series: ['17.0'] })).to.deep.equal({ kind: 'none' });
    expect(decideUpgrade({ ...openupgrade, series: [] })).to.deep.equal({ kind: 'none' });
    expect(decideUpgrade({ ...openupgrade, server: undefined, upgradePath: [] })).to.deep.equal({ kind: 'none' });
    expect(decideUpgrade({ ...openupgrade, server: undefined })).to.include({ kind: 'refused' });
  });

  it('refuses when a --load module is not on the addons path (OpenUpgrade would migrate without its framework), naming it', () => {
    const decision = decideUpgrade({ ...openupgrade, onPath: (name) => name !== 'openupgrade_framework' });
    expect(decision).to.include({ kind: 'refused' });
    expect(decision).to.have.property('message').that.includes('Failed to load server-wide module `openupgrade_framework`: it is not on the addons path');
    expect(decideUpgrade({ ...openupgrade, onPath: () => true })).to.include({ kind: 'migrate' });
  });

  it('honours OPENUPGRADE_TARGET_VERSION: carried into the migration, refused when older than the hop', () => {
    expect(decideUpgrade({ ...openupgrade, targetVersion: '18.0' })).to.deep.equal({ kind: 'migrate', from: '16.0', to: '17.0', target: '18.0' });
    expect(decideUpgrade({ ...openupgrade, targetVersion: '16.0' })).to.include({ kind: 'refused' }).and.have.property('message').that.includes('OPENUPGRADE_TARGET_VERSION=16.0 is older than this server (17.0)');
  });
});
