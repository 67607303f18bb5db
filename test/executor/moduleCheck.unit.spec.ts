import { expect } from 'chai';
import { missingModules, missingModulesMessage } from '#services/executor/jobs/moduleCheck.ts';

describe('checking the requested modules are installed', () => {
  it('finds none missing when every requested module is installed', () => {
    const rows = [{ name: 'base', state: 'installed' }, { name: 'sale', state: 'installed' }, { name: 'crm', state: 'uninstalled' }];
    expect(missingModules(['base', 'sale'], rows)).to.deep.equal([]);
  });

  it('reports modules without a registry row as unknown, and others with their state, once each in request order', () => {
    const rows = [{ name: 'sale', state: 'installed' }, { name: 'stock', state: 'uninstalled' }];
    expect(missingModules(['no_such_module', 'sale', 'stock', 'no_such_module', 'other'], rows)).to.deep.equal([
      { name: 'no_such_module', state: null },
      { name: 'stock', state: 'uninstalled' },
      { name: 'other', state: null },
    ]);
  });

  it('names the unknown modules with the addons path searched, in its order, and the known ones with their state', () => {
    const missing = [{ name: 'no_such_module', state: null }, { name: 'stock', state: 'to install' }, { name: 'other', state: null }];
    expect(missingModulesMessage(missing, ['/opt/odoo/17.0/addons', '/srv/forja/instances/acme-dev/src', '/srv/forja/instances/acme-dev/src/addons'])).to.equal(
      "modules not installed: no_such_module, other (not found in the addons path: /opt/odoo/17.0/addons, /srv/forja/instances/acme-dev/src, /srv/forja/instances/acme-dev/src/addons), stock (state to install)",
    );
  });

  it("says the ERP's default was searched when it was given no addons path", () => {
    expect(missingModulesMessage([{ name: 'no_such_module', state: null }], [])).to.equal("modules not installed: no_such_module (not found in the addons path: the ERP's default)");
  });
});
