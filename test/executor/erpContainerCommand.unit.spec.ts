import { expect } from 'chai';
import { oneShotContainer } from '#services/executor/runtime/docker/erpContainer.ts';
import type { ErpImage } from '#services/executor/runtime/docker/erpImage.ts';
import type { ErpRunSpec } from '#services/executor/runtime/runtime.ts';

const spec: ErpRunSpec = {
  slug: 'acme-dev',
  erpVersion: '17.0',
  edition: 'community',
  database: 'forja_acme_dev',
  db: { host: 'db.internal', port: 5432, user: 'forja_acme_dev', password: 'secret' },
  sourceDir: null,
  addonsPath: [],
  dataDir: '/srv/forja/instances/acme-dev',
  logFile: '/srv/forja/instances/acme-dev/logs/erp.log',
  root: '/srv/forja',
  tenant: { kind: 'instance', slug: 'acme-dev' },
};
const image = { ref: 'odoo:17.0', command: ['odoo'], standin: false } as unknown as ErpImage;
const confinement = { user: { uid: 1000, gid: 1000 }, memoryBytes: 1 << 30, pids: 256 };

describe('docker runtime: the one-shot container of an ERP command', () => {
  it('puts the command right after the image\'s (as odoo/cli/command.py reads it), then the instance\'s arguments, without the server\'s --no-http', () => {
    const created = oneShotContainer(spec, image, 'bridge', 'forja-acme-dev-oneshot', [], confinement, 'neutralize');
    const cmd = created.Cmd!;
    expect(created.Entrypoint).to.deep.equal(['odoo']);
    expect(cmd.slice(0, 3)).to.deep.equal(['neutralize', '-c', '/etc/forja/erp.conf']);
    expect(cmd).to.include.members(['-d', 'forja_acme_dev']).and.not.include('--no-http');
  });

  it('keeps a server run as it was: no command, --no-http before the run\'s arguments', () => {
    const cmd = oneShotContainer(spec, image, 'bridge', 'forja-acme-dev-oneshot', ['-i', 'sale', '--stop-after-init'], confinement).Cmd!;
    expect(cmd[0]).to.equal('-c');
    expect(cmd.slice(-4)).to.deep.equal(['--no-http', '-i', 'sale', '--stop-after-init']);
  });

  it('mounts the folders of --upgrade-path read-only and names them as the container sees them; the image\'s own folder stays in place', () => {
    const standin = { ...image, hostFolder: '/srv/forja-checkout' } as ErpImage;
    const created = oneShotContainer(spec, standin, 'bridge', 'forja-acme-dev-oneshot', ['-u', 'all', '--upgrade-path=/opt/openupgrade/17.0/openupgrade_scripts/scripts,/srv/forja-checkout/services/erp-standin/upgrades/17.0', '--stop-after-init'], confinement);
    expect(created.Cmd).to.include('--upgrade-path=/mnt/forja-upgrade/0,/srv/forja-checkout/services/erp-standin/upgrades/17.0');
    expect(created.HostConfig?.Binds).to.include('/opt/openupgrade/17.0/openupgrade_scripts/scripts:/mnt/forja-upgrade/0:ro');
    const spaced = oneShotContainer(spec, image, 'bridge', 'forja-acme-dev-oneshot', ['--upgrade-path', '/opt/up/17.0'], confinement);
    expect(spaced.Cmd?.slice(-2)).to.deep.equal(['--upgrade-path', '/mnt/forja-upgrade/0']);
  });
});
