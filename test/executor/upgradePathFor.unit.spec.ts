import { expect } from 'chai';
import { upgradePathFor } from '#services/executor/migration/steps/registry.ts';

describe('executor: ${paths.upgrade} per engine', () => {
  const both = upgradePathFor({ openupgrade: '/opt/openupgrade/{version}/openupgrade_scripts/scripts', upgradeUtil: '/opt/upgrade-util/src' });

  it('gives an OpenUpgrade hop OpenUpgrade’s scripts and an enterprise hop upgrade-util, never the other’s', () => {
    expect(both('17.0', 'openupgrade')).to.equal('/opt/openupgrade/17.0/openupgrade_scripts/scripts');
    expect(both('17.0', 'upgrade-service')).to.equal('/opt/upgrade-util/src');
    expect(upgradePathFor({ upgradeUtil: '/opt/upgrade-util/{version}/src' })('18.0', 'upgrade-service')).to.equal('/opt/upgrade-util/18.0/src');
  });

  it('falls back to the stand-in’s own scripts for an engine whose path is not set', () => {
    const openUpgradeOnly = upgradePathFor('/opt/openupgrade/{version}/openupgrade_scripts/scripts');
    expect(openUpgradeOnly('18.0', 'upgrade-service')).to.match(/services\/erp-standin\/upgrades\/18\.0$/);
    expect(upgradePathFor(undefined)('19.0', 'openupgrade')).to.match(/services\/erp-standin\/upgrades\/19\.0$/);
  });
});
