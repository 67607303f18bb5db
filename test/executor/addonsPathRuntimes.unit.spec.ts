import { expect } from 'chai';
import { containerAddons, containerConfigOptions, serverContainer } from '#services/executor/runtime/docker/erpContainer.ts';
import { erpArgs, erpConfigOptions } from '#services/executor/runtime/process/erpCommand.ts';
import type { ErpRunSpec } from '#services/executor/runtime/runtime.ts';

const spec = (addonsPath: string[], sourceDir: string | null = '/srv/forja/instances/acme-dev/src'): ErpRunSpec => ({
  slug: 'acme-dev',
  erpVersion: '17.0',
  edition: 'enterprise',
  database: 'fi_acme_dev',
  db: { host: '127.0.0.1', port: 5432, user: 'fi_acme_dev', password: 'secret' },
  sourceDir,
  addonsPath,
  dataDir: '/srv/forja/instances/acme-dev',
  logFile: '/srv/forja/instances/acme-dev/logs/erp.log',
  root: '/srv/forja',
  tenant: { kind: 'instance', slug: 'acme-dev' },
});

const PATH = ['/repo/services/erp-standin/addons', '/opt/odoo/17.0/enterprise', '/srv/forja/instances/acme-dev/src', '/srv/forja/instances/acme-dev/src/vendor/oca/web_tools'];

/** The runtimes hand the ERP the whole addons path in its configuration file, never on the command line. */
describe('the addons path in the runtimes', () => {
  it('process: goes in the configuration file as one comma-separated addons_path, in order', () => {
    expect(erpConfigOptions(spec(PATH))).to.deep.equal({ addons_path: PATH.join(',') });
    expect(erpArgs(spec(PATH))).not.to.include('--addons-path');
  });

  it("process: an empty path leaves the option out (the ERP's default)", () => {
    expect(erpConfigOptions(spec([], null))).to.deep.equal({});
  });

  it('docker: keeps checkout folders below /mnt/extra-addons, image folders in place, and mounts the others read-only', () => {
    const image = { hostFolder: '/repo' };
    expect(containerAddons(spec(PATH), image)).to.deep.equal({
      path: ['/repo/services/erp-standin/addons', '/mnt/forja-addons/0', '/mnt/extra-addons', '/mnt/extra-addons/vendor/oca/web_tools'],
      binds: ['/opt/odoo/17.0/enterprise:/mnt/forja-addons/0:ro'],
    });
    expect(containerConfigOptions(spec(PATH), image, { server: false, mode: 'host' })).to.include({ addons_path: '/repo/services/erp-standin/addons,/mnt/forja-addons/0,/mnt/extra-addons,/mnt/extra-addons/vendor/oca/web_tools' });
  });

  it('docker: without the stand-in image every folder outside the checkout is mounted, and the container gets those mounts', () => {
    const image = { ref: 'odoo:17.0', command: ['odoo'], standin: false, hostFolder: undefined };
    const created = serverContainer(spec(PATH), image, { mode: 'host', hostPort: 21000, instanceDomain: undefined }, { user: { uid: 1000, gid: 1000 }, memoryBytes: 1 << 30, pids: 256 });
    const binds = created.HostConfig?.Binds ?? [];
    expect(binds).to.include.members([
      '/srv/forja/instances/acme-dev/src:/mnt/extra-addons:ro',
      '/repo/services/erp-standin/addons:/mnt/forja-addons/0:ro',
      '/opt/odoo/17.0/enterprise:/mnt/forja-addons/1:ro',
    ]);
    expect(created.Cmd).not.to.include('--addons-path');
  });

  it('docker: an empty path leaves the option out', () => {
    expect(containerConfigOptions(spec([], null), { hostFolder: '/repo' }, { server: false, mode: 'host' })).not.to.have.property('addons_path');
  });
});
