import { spawnSync } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { expect } from 'chai';
import { loadExecutorSettings } from '#services/executor/executor.settings.ts';
import { loadPadronSettings } from '#services/padron/padron.settings.ts';
import { ConfigError, loadConfig } from '#shared/config/config.ts';

describe('configuration', () => {
  it('fills defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).to.include({ FORJA_DATA_DIR: resolve('.data'), FORJA_CONTROL_PLANE_PORT: 8080, FORJA_WEB_PORT: 8081, FORJA_PADRON_PORT: 8082, LOG_LEVEL: 'info', FORJA_LOCAL_NATS: false });
    expect(config.DATABASE_URL).to.equal(undefined);
  });

  it('reads and converts values, treating empty ones as unset', () => {
    const config = loadConfig({ FORJA_WEB_PORT: '9001', FORJA_LOCAL_NATS: 'true', DATABASE_URL: 'postgres://u@127.0.0.1/db', LOG_LEVEL: ' ' });
    expect(config).to.include({ FORJA_WEB_PORT: 9001, FORJA_LOCAL_NATS: true, DATABASE_URL: 'postgres://u@127.0.0.1/db', LOG_LEVEL: 'info' });
  });

  it('makes every path setting absolute once, so no process sees a relative path', () => {
    expect(isAbsolute(loadConfig({}).FORJA_DATA_DIR)).to.equal(true);
    expect(loadConfig({ FORJA_DATA_DIR: 'var/forja' }).FORJA_DATA_DIR).to.equal(resolve('var/forja'));
    expect(loadConfig({ FORJA_DATA_DIR: '/srv/forja' }).FORJA_DATA_DIR).to.equal('/srv/forja');
    expect(loadExecutorSettings({ FORJA_DOCKER_SOCKET: 'run/podman.sock' }).FORJA_DOCKER_SOCKET).to.equal(resolve('run/podman.sock'));
    expect(loadPadronSettings({ FORJA_PADRON_SALTA_RATES: 'salta.yaml' }).FORJA_PADRON_SALTA_RATES).to.equal(resolve('salta.yaml'));
  });

  it('takes the git access lists as written (gitAccessFrom parses them)', () => {
    expect(loadConfig({ FORJA_GIT_FILE_ROOTS: '/srv/git, /home/git', FORJA_GIT_ALLOW_HOSTS: 'git.internal, 10.0.0.0/8, [::1]' })).to.include({ FORJA_GIT_FILE_ROOTS: '/srv/git, /home/git', FORJA_GIT_ALLOW_HOSTS: 'git.internal, 10.0.0.0/8, [::1]' });
  });

  it('ignores variables that are not Forja settings', () => {
    expect(loadConfig({ HOME: '/root', PATH: '/bin' })).to.not.have.property('HOME');
  });

  const wrong: Array<[string, string, RegExp]> = [
    ['FORJA_WEB_PORT', 'abc', /^configuration: FORJA_WEB_PORT must be integer \(got "abc"; web port\)$/],
    ['FORJA_PADRON_PORT', '70000', /^configuration: FORJA_PADRON_PORT must be <= 65535/],
    ['LOG_LEVEL', 'loud', /^configuration: LOG_LEVEL must be equal to one of the allowed values \(got "loud"; one of fatal, error/],
    ['DATABASE_URL', 'mysql://x', /^configuration: DATABASE_URL must match pattern/],
    ['NATS_URL', 'http://127.0.0.1:4222', /^configuration: NATS_URL must match pattern/],
    ['FORJA_GIT_FILE_ROOTS', '/srv/git,relative/repos', /^configuration: FORJA_GIT_FILE_ROOTS must match pattern .*comma-separated absolute folders/],
    ['FORJA_GIT_ALLOW_HOSTS', 'git.internal; rm -rf /', /^configuration: FORJA_GIT_ALLOW_HOSTS must match pattern .*comma-separated host names, addresses and CIDR ranges/],
  ];
  for (const [name, value, message] of wrong) {
    it(`refuses ${name}=${value} with one line naming it`, () => {
      expect(() => loadConfig({ [name]: value })).to.throw(ConfigError, message);
    });
  }

  it('stops a process at start-up with that line and exit code 2', function () {
    this.timeout(30_000);
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'projections/main.ts'], {
      env: { ...process.env, FORJA_WEB_PORT: 'abc' },
      encoding: 'utf8',
    });
    expect(result.status).to.equal(2);
    expect(result.stderr.trim()).to.match(/^configuration: FORJA_WEB_PORT must be integer/);
    expect(result.stderr.trim().split('\n')).to.have.length(1);
  });
});
