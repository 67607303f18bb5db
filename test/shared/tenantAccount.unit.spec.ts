import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { parseUidRange, removeTenantAccount, tenantAccount, tenantAccountName } from '#shared/local/tenantAccount.ts';

const asRoot = process.getuid?.() === 0;

describe('tenant accounts', () => {
  it('name an instance fi-<slug> and a migration fm-<slug>, within 32 characters, never one for two slugs', () => {
    expect(tenantAccountName('instance', 'acme-dev')).to.equal('fi-acme-dev');
    expect(tenantAccountName('migration', 'acme-dev')).to.equal('fm-acme-dev');
    const long = 'a'.repeat(60);
    const longer = `${'a'.repeat(59)}b`;
    expect(tenantAccountName('instance', long)).to.have.length.at.most(32);
    expect(tenantAccountName('instance', long)).not.to.equal(tenantAccountName('instance', longer));
    expect(() => tenantAccountName('instance', '../root')).to.throw(/not a slug/);
  });

  it('read FORJA_TENANT_UID_RANGE and refuse what is not a range', () => {
    expect(parseUidRange('60000-64999')).to.deep.equal({ min: 60000, max: 64999 });
    for (const bad of ['', '5-9', '64999-60000', '60000-70000', 'x-y']) expect(() => parseUidRange(bad), bad).to.throw(/not a uid range/);
  });

  (asRoot ? it : it.skip)('as root, make an account of its own per tenant in the range, find it again, and remove it', () => {
    const slug = `t${randomBytes(4).toString('hex')}`;
    const range = { min: 60000, max: 64999 };
    const instance = tenantAccount('instance', slug, range)!;
    const migration = tenantAccount('migration', slug, range)!;
    try {
      expect(instance.uid).to.be.within(range.min, range.max);
      expect(instance.gid).to.be.within(range.min, range.max);
      expect(migration.uid).not.to.equal(instance.uid);
      expect(tenantAccount('instance', slug, range)).to.deep.equal(instance);
      expect(() => tenantAccount('instance', slug, { min: 1000, max: 1001 })).to.throw(/outside FORJA_TENANT_UID_RANGE/);
    } finally {
      removeTenantAccount('instance', slug);
      removeTenantAccount('migration', slug);
    }
    expect(spawnSync('getent', ['passwd', instance.name]).status).not.to.equal(0);
  });
});
