import { expect } from 'chai';
import { DEFAULT_ERP_SERVER, demoOptions, erpOptions } from '#services/executor/runtime/erpOptions.ts';
import { containerConfigOptions, oneShotContainer, routingLabels, serverContainer } from '#services/executor/runtime/docker/erpContainer.ts';
import { erpArgs, erpEnv, processConfigOptions } from '#services/executor/runtime/process/erpCommand.ts';
import { optionsSpec } from './fixtures/optionsSpec.ts';

describe('the ERP options Forja writes in its configuration file (erpOptions.ts, issue 25)', () => {
  it('holds the whole database connection, the proxy mode, no demo data, the data dir, threaded mode and Odoo\'s limits', () => {
    expect(erpOptions(optionsSpec(), { dataDir: '/var/lib/odoo', server: true })).to.deep.equal({
      db_host: 'db.internal',
      db_port: '6543',
      db_user: 'forja_acme_dev',
      db_password: 'pa ss;word#1',
      db_name: 'forja_acme_dev',
      proxy_mode: 'True',
      without_demo: 'all',
      data_dir: '/var/lib/odoo',
      workers: '0',
      limit_memory_soft: String(2048 * 1024 * 1024),
      limit_memory_hard: String(2560 * 1024 * 1024),
      limit_time_cpu: '60',
      limit_time_real: '120',
    });
  });

  it('asks for demo data only when the instance did, in each version\'s words', () => {
    expect(demoOptions('16.0', false)).to.deep.equal({ without_demo: 'all' });
    expect(demoOptions('18.0', true)).to.deep.equal({ without_demo: 'False' });
    expect(demoOptions('19.0', false)).to.deep.equal({ without_demo: 'all' });
    expect(demoOptions('19.0', true)).to.deep.equal({ with_demo: 'True' });
    expect(erpOptions(optionsSpec({ demoData: true }), { dataDir: '/d', server: false })).to.include({ without_demo: 'False' });
  });

  it('runs workers and a gevent port on the server only; workers without a gevent port are refused', () => {
    const server = { ...DEFAULT_ERP_SERVER, workers: 3, limitTimeRealS: 900 };
    expect(erpOptions(optionsSpec({ server }), { dataDir: '/d', server: true, geventPort: 21001 })).to.include({ workers: '3', gevent_port: '21001', limit_time_real: '900' });
    const oneShot = erpOptions(optionsSpec({ server }), { dataDir: '/d', server: false });
    expect(oneShot).to.include({ workers: '0' });
    expect(oneShot).not.to.have.property('gevent_port');
    expect(() => erpOptions(optionsSpec({ server }), { dataDir: '/d', server: true })).to.throw('no gevent port');
    expect(erpOptions(optionsSpec(), { dataDir: '/d', server: true, geventPort: 21001 }), 'threaded: /websocket stays on the HTTP port').not.to.have.property('gevent_port');
  });

  it('process runtime: the command line keeps -c and -d, the environment no password, the file the host\'s paths', () => {
    expect(erpArgs(optionsSpec())).to.deep.equal(['-c', '/data/instances/acme-dev/run/erp.conf', '-d', 'forja_acme_dev']);
    expect(erpEnv(optionsSpec())).not.to.have.property('PGPASSWORD');
    expect(JSON.stringify(erpEnv(optionsSpec()))).not.to.include('pa ss;word#1');
    expect(processConfigOptions(optionsSpec(), { server: true })).to.include({ data_dir: '/data/instances/acme-dev', addons_path: '/data/instances/acme-dev/src' });
  });

  it('docker runtime: the container\'s data dir, and the gevent port inside the container in bridge mode', () => {
    const server = { ...DEFAULT_ERP_SERVER, workers: 2 };
    expect(containerConfigOptions(optionsSpec({ server }), { hostFolder: undefined }, { server: true, mode: 'bridge', geventPort: 21001 })).to.include({ data_dir: '/var/lib/odoo', gevent_port: '8072', addons_path: '/mnt/extra-addons' });
    expect(containerConfigOptions(optionsSpec({ server }), { hostFolder: undefined }, { server: true, mode: 'host', geventPort: 21001 })).to.include({ gevent_port: '21001' });
  });

  it('docker runtime: Traefik\'s labels send /websocket to the gevent port too when workers are on', () => {
    const labels = routingLabels('acme-dev', 'erp.example.com', { mode: 'bridge', hostPort: 21000, hostGeventPort: 21001 });
    expect(labels).to.include({
      'traefik.http.routers.forja-acme-dev-websocket.rule': 'Host(`acme-dev.erp.example.com`) && Path(`/websocket`)',
      'traefik.http.services.forja-acme-dev-websocket.loadbalancer.server.port': '8072',
      'traefik.http.services.forja-acme-dev.loadbalancer.server.port': '8069',
    });
    expect(routingLabels('acme-dev', 'erp.example.com', { mode: 'host', hostPort: 21000, hostGeventPort: 21001 })).to.include({ 'traefik.http.services.forja-acme-dev-websocket.loadbalancer.server.port': '21001' });
    expect(Object.keys(routingLabels('acme-dev', 'erp.example.com', { mode: 'host', hostPort: 21000 })).filter((key) => key.includes('websocket'))).to.deep.equal([]);
  });

  it('docker runtime: no password on the command line or in the environment; the gevent port published on 127.0.0.1 and labelled', () => {
    const image = { ref: 'odoo:17.0', command: ['odoo'], standin: false, hostFolder: undefined };
    const confinement = { user: { uid: 70001, gid: 70001 }, memoryBytes: 1 << 30, pids: 512 };
    const server = serverContainer(optionsSpec(), image, { mode: 'bridge', hostPort: 21000, hostGeventPort: 21001, instanceDomain: undefined }, confinement);
    const oneShot = oneShotContainer(optionsSpec(), image, 'bridge', 'forja-acme-dev-oneshot', ['-i', 'base', '--stop-after-init'], confinement);
    for (const container of [server, oneShot]) {
      expect(JSON.stringify([container.Cmd, container.Env])).not.to.include('pa ss;word#1');
      expect(container.Env).to.include('ODOO_RC=/etc/forja/erp.conf');
      expect(container.User).to.equal('70001:70001');
      expect(container.HostConfig?.Binds).to.include('/data/instances/acme-dev/run:/etc/forja:ro');
    }
    // The image's command is the entrypoint: the official entrypoint.sh would append --db_password (erpContainer.ts).
    expect(server.Entrypoint).to.deep.equal(['odoo']);
    expect(server.Cmd).to.deep.equal(['-c', '/etc/forja/erp.conf', '-d', 'forja_acme_dev', '--http-port', '8069', '--http-interface', '0.0.0.0']);
    expect(server.HostConfig?.PortBindings).to.deep.equal({ '8069/tcp': [{ HostIp: '127.0.0.1', HostPort: '21000' }], '8072/tcp': [{ HostIp: '127.0.0.1', HostPort: '21001' }] });
    expect(server.Labels).to.include({ 'forja.host-port': '21000', 'forja.host-gevent-port': '21001' });
  });
});
