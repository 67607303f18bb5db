import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startPadronProcess } from '#services/padron/padronProcess.ts';
import { loadConfig, type Config } from '#shared/config/config.ts';
import { freePort } from '#shared/local/freePort.ts';
import { silentLogger } from '#shared/log.ts';
import { openInfrastructure, type Infrastructure } from '#shared/platform/infrastructure.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import { waitUntil } from '#test/support/wait.ts';
import { createPadronDatabase, type PadronDatabase } from './support/padronDatabase.ts';
import { ddmmyyyy, fileFolder, monthPeriod, validCuit } from './support/padronFiles.ts';

/**
 * A stalled socket holds its response only when the file is larger than what the kernel buffers
 * for it (about 3 MB on loopback here); below that every response "finishes" into the buffers and
 * nothing stalls. 560,000 CABA lines of random rates are ~7 MB of gzip.
 */
const LINES = 560_000;
const STALLING_BYTES = 6 * 1024 * 1024;

/** A CABA file of `LINES` subjects with increasing CUITs and random rates (seeded: every run the same file). */
async function writeLargeCabaFile(folder: string): Promise<{ path: string; firstCuit: string }> {
  let seed = 10;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const { from, to } = monthPeriod();
  const head = `${ddmmyyyy(from)};${ddmmyyyy(from)};${ddmmyyyy(to)};`;
  const rate = () => `${Math.floor(random() * 10)},${String(Math.floor(random() * 100)).padStart(2, '0')}`;
  const path = join(folder, 'ARDJU-large.TXT');
  const out = createWriteStream(path);
  let ten = 2000000000;
  let firstCuit = '';
  let chunk = '';
  for (let i = 0; i < LINES; i++) {
    const cuit = validCuit(ten + 1 + Math.floor(random() * 150));
    ten = Number(cuit.slice(0, 10));
    firstCuit ||= cuit;
    chunk += `${head}${cuit};C;S;N;${rate()};${rate()};00;00;RAZON SOCIAL\r\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk, 'latin1')) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk, 'latin1');
  await once(out, 'finish');
  return { path, firstCuit };
}

/** A download from a raw socket that reads nothing: what it is sent stays in the kernel's buffers. */
function stalledDownload(port: number, client: string): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.on('error', () => undefined);
  socket.write(`GET /padron/download HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: ${client}\r\n\r\n`);
  return socket;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('padrón downloads against clients that stop reading (issue 10, item 4)', function () {
  this.timeout(180_000);
  let db: PadronDatabase;
  let root: string;
  let config: Config;
  let infra: Infrastructure;
  let firstCuit: string;
  const sockets: Socket[] = [];

  before(async () => {
    db = await createPadronDatabase('padron_stalled');
    const file = await writeLargeCabaFile(fileFolder());
    firstCuit = file.firstCuit;
    await db.load({ state: 'C', path: file.path });
    root = mkdtempSync(join(tmpdir(), 'forja-padron-stalled-'));
    // A dot folder, like the default `.data`: the files must be served through it.
    config = loadConfig({ DATABASE_URL: db.url, FORJA_DATA_DIR: join(root, '.data') });
    // What `npm start` gives every process: one shared pool of 10 connections.
    infra = await openInfrastructure(config, silentLogger);
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });
  after(async () => {
    await infra.close();
    await db.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** The padrón process as `npm start` runs it, on the shared infrastructure, with these FORJA_PADRON_* settings. */
  async function startPadron(env: Record<string, string>, overrides: Partial<Config> = {}): Promise<{ proc: ForjaProcess; port: number; url: string }> {
    const port = overrides.FORJA_PADRON_PORT ?? (await freePort());
    const saved = { ...process.env };
    Object.assign(process.env, { FORJA_PADRON_RATE_LIMIT: '0', ...env });
    // The settings are read from the environment before the first await of the call.
    const starting = startPadronProcess(infra, { ...config, ...overrides, FORJA_PADRON_PORT: port }, silentLogger);
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
    return { proc: await starting, port, url: `http://127.0.0.1:${port}` };
  }

  const padronConnections = async () =>
    (await infra.pool.query<{ count: number }>("select count(*)::int as count from pg_stat_activity where application_name = 'forja-padron'")).rows[0]?.count ?? -1;
  const inProgress = async (url: string) => Number(/^padron_downloads_in_progress (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? -1);

  it('refuses downloads over the caps with 503 and Retry-After while 12 stall, and lookups, /health and the shared pool keep answering', async () => {
    const { proc, port, url } = await startPadron({ FORJA_PADRON_DOWNLOADS_MAX: '12', FORJA_PADRON_DOWNLOADS_PER_IP: '4', FORJA_PADRON_TRUST_PROXY: '1', FORJA_PADRON_SEND_TIMEOUT_S: '120' });
    try {
      const whole = Buffer.from(await (await fetch(`${url}/padron/download`)).arrayBuffer());
      expect(whole.length, 'a file large enough for a reader that stops to hold its response').to.be.above(STALLING_BYTES);
      await Promise.all(Array.from({ length: 10 }, () => infra.pool.query('select 1')));

      // Twelve stalled downloads from three addresses, four each: the audit's attack, which held the shared pool's connections.
      for (let i = 0; i < 12; i++) sockets.push(stalledDownload(port, `203.0.113.${(i % 3) + 1}`));
      await waitUntil(async () => (await inProgress(url)) === 12, 'twelve downloads in progress');

      const refused = async (client: string) => {
        const response = await fetch(`${url}/padron/download`, { headers: { 'x-forwarded-for': client } });
        return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as { detail: string } };
      };
      const sameAddress = await refused('203.0.113.1');
      expect(sameAddress.status).to.equal(503);
      expect(sameAddress.retryAfter).to.equal('10');
      expect(sameAddress.body.detail).to.equal(
        'too many downloads in progress: this address already has 4 downloads in progress, the most one address may have; retry after the number of seconds in Retry-After',
      );
      const otherAddress = await refused('203.0.113.4');
      expect(otherAddress.status).to.equal(503);
      expect(otherAddress.retryAfter).to.equal('10');
      expect(otherAddress.body.detail).to.equal('too many downloads in progress: 12 downloads are in progress, the most the service serves at once; retry after the number of seconds in Retry-After');

      const lookup = await timed(() => fetch(`${url}/padron/cuit/${firstCuit}`));
      expect(lookup.value.status).to.equal(200);
      expect(lookup.ms, 'a lookup').to.be.below(200);
      const batch = await timed(() => fetch(`${url}/padron/cuits`, { method: 'POST', body: JSON.stringify({ cuits: [firstCuit] }) }));
      expect(batch.value.status).to.equal(200);
      expect(batch.ms, 'a batch lookup').to.be.below(200);
      const health = await timed(() => fetch(`${url}/health`));
      expect(health.value.status).to.equal(200);
      expect(health.ms, '/health').to.be.below(200);
      // What login, /health and the API of the other processes run on: every connection of the shared pool is free.
      const shared = await timed(() => Promise.all(Array.from({ length: 10 }, () => infra.pool.query('select count(*) from pg_stat_activity'))));
      expect(shared.ms, 'ten queries through the shared pool at once').to.be.below(200);
      expect(await padronConnections(), 'the padrón’s own connections, at most FORJA_PADRON_POOL_MAX').to.be.within(1, 4);

      expect(await inProgress(url), 'still stalled, not finished').to.equal(12);
      expect(sockets.every((socket) => !socket.destroyed)).to.equal(true);
      for (const socket of sockets.splice(0)) socket.destroy();
      await waitUntil(async () => (await inProgress(url)) === 0, 'the slots to be released when the clients leave');
      const after = await fetch(`${url}/padron/download`, { headers: { 'x-forwarded-for': '203.0.113.1' } });
      expect(after.status).to.equal(200);
      expect(Buffer.from(await after.arrayBuffer())).to.deep.equal(whole);
    } finally {
      await proc.stop();
    }
  });

  it('disconnects a download whose client reads nothing for FORJA_PADRON_SEND_TIMEOUT_S, and frees its slot', async () => {
    const { proc, port, url } = await startPadron({ FORJA_PADRON_DOWNLOADS_MAX: '1', FORJA_PADRON_SEND_TIMEOUT_S: '1' });
    try {
      const head = await fetch(`${url}/padron/download`, { method: 'HEAD' });
      const length = Number(head.headers.get('content-length'));
      expect(length).to.be.above(STALLING_BYTES);
      const opened = performance.now();
      const socket = stalledDownload(port, 'ignored');
      sockets.push(socket);
      await waitUntil(async () => (await inProgress(url)) === 1, 'the download to start');
      const refused = await fetch(`${url}/padron/download`);
      expect(refused.status, 'the only slot is taken').to.equal(503);
      await refused.arrayBuffer();
      await waitUntil(async () => (await inProgress(url)) === 0, 'the server to give up on the stalled client');
      expect(performance.now() - opened, 'not before the timeout').to.be.above(900);

      // The client finds what was in the buffers, then the end: the response was cut off.
      let received = 0;
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      const ended = once(socket, 'close');
      socket.resume();
      await ended;
      expect(received).to.be.above(0).and.below(length);
      const again = await fetch(`${url}/padron/download`);
      expect(again.status, 'the slot is free again').to.equal(200);
      expect((await again.arrayBuffer()).byteLength).to.equal(length);
    } finally {
      await proc.stop();
    }
  });

  it('closes its own pool when it stops, and when it cannot start', async () => {
    const { proc } = await startPadron({});
    expect(await padronConnections()).to.be.above(0);
    await proc.stop();
    await waitUntil(async () => (await padronConnections()) === 0, 'the padrón’s connections to close on stop');

    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    try {
      const { port } = taken.address() as AddressInfo;
      let failure: Error | undefined;
      await startPadron({}, { FORJA_PADRON_PORT: port }).then((started) => started.proc.stop(), (error: Error) => (failure = error));
      expect(failure?.message).to.match(/EADDRINUSE/);
      await waitUntil(async () => (await padronConnections()) === 0, 'the padrón’s connections to close after the failed start');
    } finally {
      taken.close();
    }
  });

  it('refuses to start when its download folder cannot be created, naming it', async () => {
    const blocker = join(root, 'not-a-folder');
    writeFileSync(blocker, '');
    let failure: Error | undefined;
    await startPadron({}, { FORJA_DATA_DIR: blocker }).then((started) => started.proc.stop(), (error: Error) => (failure = error));
    expect(failure?.message).to.match(new RegExp(`^cannot create the padrón download folder ${blocker}/padron/downloads: ENOTDIR`));
    await waitUntil(async () => (await padronConnections()) === 0, 'no padrón connection left open');
  });
});
