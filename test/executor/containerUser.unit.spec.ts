import { expect } from 'chai';
import { ConfigError } from '#shared/config/config.ts';
import { containerAccount, engineMapping } from '#services/executor/runtime/docker/containerUser.ts';

const executor = { uid: 1000, gid: 1000 };
const tenant = { uid: 61000, gid: 61000 };

describe('docker runtime: the account an instance\'s containers run as', () => {
  it('as root, on a rootful engine: the instance\'s own account, which owns its folders and 0600 file', () => {
    expect(containerAccount({ uid: 0, gid: 0 }, tenant, 'rootful')).to.deep.equal(tenant);
  });

  it('not root, on a rootful engine: the executor\'s account, never the image\'s user (101 could read neither)', () => {
    expect(containerAccount(executor, null, 'rootful')).to.deep.equal(executor);
  });

  it('not root, on a rootless engine: root inside, which the engine maps to its own user', () => {
    expect(containerAccount(executor, null, 'rootless')).to.deep.equal({ uid: 0, gid: 0 });
  });

  it('refuses a root executor on a rootless engine, saying what to change', () => {
    expect(() => containerAccount({ uid: 0, gid: 0 }, tenant, 'rootless')).to.throw(ConfigError, /rootless.*FORJA_DOCKER_SOCKET at a rootful engine/s);
  });

  it('reads rootless from the engine\'s security options (dockerd and podman say name=rootless)', () => {
    expect(engineMapping(['name=seccomp,profile=builtin', 'name=rootless', 'name=cgroupns'])).to.equal('rootless');
    expect(engineMapping(['name=seccomp,profile=default'])).to.equal('rootful');
    expect(engineMapping(undefined)).to.equal('rootful');
  });
});
