import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { connect } from 'nats';
import { createNatsBus } from '#shared/bus/natsBus.ts';
import { natsAddress, natsConnection } from '#shared/bus/natsUrl.ts';
import { startNatsServer, type RunningNatsServer } from '#shared/local/natsServer.ts';
import { runDir } from '#test/support/runDir.ts';

/**
 * Issue 10, item 16: the private nats-server took any client on 127.0.0.1, so any local user
 * could read and inject instance jobs. It now wants the token stored beside its data.
 */
describe('the private nats-server', function () {
  this.timeout(30_000);
  let dataDir: string;
  let server: RunningNatsServer;

  before(async () => {
    dataDir = runDir('nats-auth');
    server = await startNatsServer({ dataDir });
  });
  after(() => server?.stop());

  it('refuses a client without the token, or with a wrong one', async () => {
    for (const attempt of [{ servers: server.address }, { servers: server.address, token: 'not-the-token-not-the-token-000' }]) {
      const error = await connect({ ...attempt, reconnect: false, timeout: 5000 }).then(
        async (nc) => (await nc.close(), undefined),
        (e: unknown) => e as Error,
      );
      expect(error, JSON.stringify(attempt)).to.be.instanceOf(Error);
      expect(error?.message.toLowerCase(), JSON.stringify(attempt)).to.include('authorization violation');
    }
    const bus = await createNatsBus({ url: server.address }).catch((e: unknown) => e as Error);
    expect(bus).to.be.instanceOf(Error).with.property('message').that.matches(/^cannot connect to NATS at nats:\/\/127\.0\.0\.1:\d+: .*authorization violation/i);
  });

  it('takes a client with the token from its URL, and the bus works through it', async () => {
    expect(server.url).to.match(/^nats:\/\/[A-Za-z0-9_-]{32}@127\.0\.0\.1:\d+$/);
    expect(natsAddress(server.url)).to.equal(server.address);
    const bus = await createNatsBus({ url: server.url });
    try {
      const received = new Promise<string>((resolve) => bus.subscribe('logs.auth-test', (_subject, data) => resolve(Buffer.from(data).toString())));
      bus.publish('logs.auth-test', Buffer.from('hello'));
      expect(await received).to.equal('hello');
    } finally {
      await bus.close();
    }
  });

  it('keeps the token in files only its owner reads, never on the command line', () => {
    const token = readFileSync(join(dataDir, 'nats', 'token'), 'utf8').trim();
    expect(natsConnection(server.url).token).to.equal(token);
    for (const file of ['token', 'nats-server.conf']) expect(statSync(join(dataDir, 'nats', file)).mode & 0o777, file).to.equal(0o600);
    expect(statSync(join(dataDir, 'nats')).mode & 0o777).to.equal(0o700);
    expect(readFileSync(join(dataDir, 'nats', 'nats-server.conf'), 'utf8')).to.include(`token: "${token}"`);
    const pid = readPidOf(join(dataDir, 'nats', 'nats-server.conf'));
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).to.not.include(token);
  });

  it('replaces a token file that holds no usable token', async () => {
    await server.stop();
    writeFileSync(join(dataDir, 'nats', 'token'), 'short\n');
    server = await startNatsServer({ dataDir });
    const token = natsConnection(server.url).token!;
    expect(token).to.match(/^[A-Za-z0-9_-]{32}$/);
    expect(readFileSync(join(dataDir, 'nats', 'token'), 'utf8').trim()).to.equal(token);
    const bus = await createNatsBus({ url: server.url });
    await bus.close();
  });

  it('keeps the same token across restarts, so NATS_URL given to other processes stays valid', async () => {
    const first = natsConnection(server.url).token;
    await server.stop();
    server = await startNatsServer({ dataDir });
    expect(natsConnection(server.url).token).to.equal(first);
  });
});

describe('NATS URLs with credentials', () => {
  it('become nats.js options, and their address has none', () => {
    expect(natsConnection('nats://127.0.0.1:4222')).to.deep.equal({ servers: 'nats://127.0.0.1:4222' });
    expect(natsConnection('nats://s3cr3t@127.0.0.1:4222')).to.deep.equal({ servers: 'nats://127.0.0.1:4222', token: 's3cr3t' });
    expect(natsConnection('tls://forja:p%40ss@nats.internal:4222')).to.deep.equal({ servers: 'tls://nats.internal:4222', user: 'forja', pass: 'p@ss' });
    expect(natsAddress('nats://s3cr3t@127.0.0.1:4222')).to.equal('nats://127.0.0.1:4222');
  });
});

/** The pid of the nats-server started with this configuration file. */
function readPidOf(configFile: string): string {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(configFile)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no process runs with ${configFile}`);
}
