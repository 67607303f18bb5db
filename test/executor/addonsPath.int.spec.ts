import { mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { STANDIN_OPENUPGRADE, STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { addonsPathFor, AddonsPathError, hopAddonsPath, MAX_ADDONS_FOLDERS, openUpgradeAddons, type AddonsPathRequest } from '#services/executor/runtime/addonsPath.ts';
import { AddonsScanError, checkoutAddons } from '#services/executor/runtime/checkoutAddons.ts';
import { checkoutCommit } from '#shared/git/gitSource.ts';
import { addonsRepo, writeModule } from '#test/support/addonsRepo.ts';
import { runDir } from '#test/support/runDir.ts';

const access = { fileRoots: [tmpdir()], allowHosts: [] };

function thrown(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

/** Odoo.sh's rule on a real checkout: every folder of the repository and its submodules that holds modules. */
describe('the addons path (addonsPath.ts)', function () {
  this.timeout(60_000);
  let src: string;
  /** A folder outside the checkout holding a module: what a link in a customer's repository may point at. */
  let outside: string;

  before(async () => {
    outside = runDir('outside-addons');
    await writeModule(join(outside, 'host_secret'), 'Not the customer’s');
    const { repo, head } = await addonsRepo(async (work) => {
      // Odoo.sh ignores dot-folders and lets a team hand-pick modules from one through links.
      await writeModule(join(work, '.oca-all', 'oca_unwanted'), 'Unwanted');
      mkdirSync(join(work, 'picked'));
      symlinkSync('../.oca-all/oca_unwanted', join(work, 'picked', 'oca_unwanted'));
      await writeModule(join(work, 'node_modules', 'pkg', 'not_odoo'), 'Not a module of the ERP');
      // Links that lead out of the checkout: a folder, and a module.
      symlinkSync(outside, join(work, 'escape'));
      symlinkSync('/etc', join(work, 'etc'));
      mkdirSync(join(work, 'strays'));
      symlinkSync(join(outside, 'host_secret'), join(work, 'strays', 'host_secret'));
      // A module's own folders are never searched.
      await writeModule(join(work, 'addons', 'acme_sale', 'tests', 'fixture_module'), 'Test fixture');
    });
    src = join(runDir('addons-checkout'), 'src');
    await checkoutCommit(repo.url, 'main', head, src, { access });
  });

  const request = (overrides: Partial<AddonsPathRequest> = {}): AddonsPathRequest => ({ erpVersion: '17.0', edition: 'community', checkoutDir: src, standin: true, settings: {}, ...overrides });

  it('puts the standard addons first, then the checkout root, addons/ and the submodule’s nested folder, in that order', () => {
    expect(addonsPathFor(request())).to.deep.equal([STANDIN_STANDARD_ADDONS, src, join(src, 'addons'), join(src, 'picked'), join(src, 'vendor/oca/web_tools')]);
  });

  it('skips dot-folders and node_modules, and searches no module’s own folders', () => {
    const path = checkoutAddons(src);
    expect(path).not.to.include(join(src, '.oca-all'));
    expect(path).not.to.include(join(src, 'node_modules/pkg'));
    expect(path).not.to.include(join(src, 'addons/acme_sale/tests'));
  });

  it('counts a link to a module inside the checkout, and never follows one out of it', () => {
    const path = checkoutAddons(src);
    expect(path, 'hand-picked from a dot-folder').to.include(join(src, 'picked'));
    expect(path.filter((folder) => !folder.startsWith(`${src}/`) && folder !== src), 'nothing outside the checkout').to.deep.equal([]);
    for (const linked of ['escape', 'etc', 'strays']) expect(path).not.to.include(join(src, linked));
  });

  it('gives a real ERP no standard folder unless FORJA_ERP_ADDONS names some, {version} replaced, each folder once', () => {
    expect(addonsPathFor(request({ standin: false, checkoutDir: null }))).to.deep.equal([]);
    const standard = runDir('standard-addons');
    mkdirSync(join(standard, '17.0'));
    const settings = { FORJA_ERP_ADDONS: `${standard}/{version}, ${standard}/{version},${src}` };
    expect(addonsPathFor(request({ standin: false, settings }))).to.deep.equal([join(standard, '17.0'), src, join(src, 'addons'), join(src, 'picked'), join(src, 'vendor/oca/web_tools')]);
  });

  it('fails naming FORJA_ERP_ADDONS and the version when a folder is missing', () => {
    const error = thrown(() => addonsPathFor(request({ settings: { FORJA_ERP_ADDONS: '/nowhere/{version}/addons' } })));
    expect(error).to.be.instanceOf(AddonsPathError);
    expect(error.message).to.equal('FORJA_ERP_ADDONS: /nowhere/17.0/addons (ERP version 17.0) is not a folder');
  });

  describe('enterprise edition', () => {
    it('fails naming FORJA_ERP_ENTERPRISE_ADDONS and the version when it is unset', () => {
      const error = thrown(() => addonsPathFor(request({ edition: 'enterprise' })));
      expect(error).to.be.instanceOf(AddonsPathError);
      expect(error.message).to.equal(
        'the enterprise edition needs the enterprise addons of ERP version 17.0: set FORJA_ERP_ENTERPRISE_ADDONS to their folder ({version} is replaced, e.g. /opt/odoo/{version}/enterprise)',
      );
    });

    it('fails naming the setting when its folder for this version is missing', () => {
      const error = thrown(() => addonsPathFor(request({ edition: 'enterprise', erpVersion: '18.0', settings: { FORJA_ERP_ENTERPRISE_ADDONS: '/nowhere/{version}/enterprise' } })));
      expect(error.message).to.equal('FORJA_ERP_ENTERPRISE_ADDONS: /nowhere/18.0/enterprise (ERP version 18.0) is not a folder');
    });

    it('puts the enterprise folder after the standard ones and before the checkout', async () => {
      const enterprise = runDir('enterprise');
      await writeModule(join(enterprise, '17.0', 'web_studio'), 'Studio');
      const path = addonsPathFor(request({ edition: 'enterprise', settings: { FORJA_ERP_ENTERPRISE_ADDONS: `${enterprise}/{version}` } }));
      expect(path.slice(0, 3)).to.deep.equal([STANDIN_STANDARD_ADDONS, join(enterprise, '17.0'), src]);
    });

    it('leaves the enterprise folder off a community instance', () => {
      expect(addonsPathFor(request({ checkoutDir: null, settings: { FORJA_ERP_ENTERPRISE_ADDONS: '/nowhere/{version}' } }))).to.deep.equal([STANDIN_STANDARD_ADDONS]);
    });
  });

  describe('OpenUpgrade hops', () => {
    it('take FORJA_OPENUPGRADE_PATH with {version} replaced, else the stand-in\'s imitation', () => {
      const root = runDir('openupgrade');
      mkdirSync(join(root, '17.0'));
      expect(openUpgradeAddons({ FORJA_OPENUPGRADE_PATH: `${root}/{version}` }, '17.0', false)).to.deep.equal([join(root, '17.0')]);
      expect(openUpgradeAddons({}, '17.0', true)).to.deep.equal([STANDIN_OPENUPGRADE]);
    });

    it('fail naming FORJA_OPENUPGRADE_PATH for a real ERP without it, and for a version it has no folder for', () => {
      expect(() => openUpgradeAddons({}, '18.0', false)).to.throw(AddonsPathError, /an OpenUpgrade hop to 18\.0 needs OCA OpenUpgrade's 18\.0 branch: set FORJA_OPENUPGRADE_PATH/);
      expect(() => openUpgradeAddons({ FORJA_OPENUPGRADE_PATH: `${runDir('openupgrade-none')}/{version}` }, '18.0', false)).to.throw(AddonsPathError, /FORJA_OPENUPGRADE_PATH: .*\/18\.0 \(ERP version 18\.0\) is not a folder/);
    });
  });

  describe('a migration hop (hopAddonsPath)', () => {
    it('gives an enterprise hop the enterprise addons an enterprise instance gets, and no OpenUpgrade', () => {
      const root = runDir('hop-enterprise');
      mkdirSync(join(root, '17.0'));
      const settings = { FORJA_ERP_ENTERPRISE_ADDONS: `${root}/{version}`, FORJA_OPENUPGRADE_PATH: `${root}/{version}` };
      const customer = join(root, 'customer-addons');
      expect(hopAddonsPath({ erpVersion: '17.0', edition: 'enterprise', engine: 'upgrade-service', standin: true, settings, checkoutFolders: [customer] })).to.deep.equal([
        STANDIN_STANDARD_ADDONS,
        join(root, '17.0'),
        customer,
      ]);
    });

    it('gives a community OpenUpgrade hop the standard addons, OpenUpgrade’s folder and the customer’s, each once', () => {
      const customer = join(runDir('hop-community'), 'addons');
      expect(hopAddonsPath({ erpVersion: '18.0', edition: 'community', engine: 'openupgrade', standin: true, settings: {}, checkoutFolders: [customer, customer] })).to.deep.equal([
        STANDIN_STANDARD_ADDONS,
        STANDIN_OPENUPGRADE,
        customer,
      ]);
    });

    it('fails an enterprise hop without FORJA_ERP_ENTERPRISE_ADDONS, naming it', () => {
      expect(() => hopAddonsPath({ erpVersion: '17.0', edition: 'enterprise', engine: 'upgrade-service', standin: true, settings: {}, checkoutFolders: [] })).to.throw(
        AddonsPathError,
        /the enterprise edition needs the enterprise addons of ERP version 17\.0: set FORJA_ERP_ENTERPRISE_ADDONS/,
      );
    });
  });

  describe('bounds', () => {
    it('stops past the folder count with a clear error', () => {
      const error = thrown(() => checkoutAddons(src, { depth: 16, folders: 3 }));
      expect(error).to.be.instanceOf(AddonsScanError);
      expect(error.message).to.match(/^the repository has more than 3 folders to search for modules/);
    });

    it('stops past the depth with a clear error naming the folder', () => {
      const error = thrown(() => checkoutAddons(src, { depth: 1, folders: 1000 }));
      expect(error).to.be.instanceOf(AddonsScanError);
      expect(error.message).to.match(/^the repository's folders go deeper than 1 levels \(\S+\/\S+\)/);
    });

    it('stops past the most folders one path may hold', async () => {
      const dir = runDir('many');
      for (let n = 0; n <= MAX_ADDONS_FOLDERS; n++) await writeModule(join(dir, `f${n}`, 'm'), 'M');
      const error = thrown(() => addonsPathFor(request({ checkoutDir: dir, standin: false })));
      expect(error).to.be.instanceOf(AddonsPathError);
      expect(error.message).to.match(new RegExp(`^the addons path would have ${MAX_ADDONS_FOLDERS + 1} folders holding modules; Forja gives the ERP ${MAX_ADDONS_FOLDERS} at most`));
    });

    it('refuses a folder holding modules whose name the addons_path cannot hold', async () => {
      const dir = runDir('comma');
      await writeModule(join(dir, 'a,b', 'x'), 'X');
      expect(thrown(() => checkoutAddons(dir)).message).to.equal("the folder a,b holds modules, but its name has a comma or a line break, which the ERP's addons_path cannot hold: rename it");
    });
  });
});
