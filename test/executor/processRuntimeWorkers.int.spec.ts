import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect } from 'chai';
import { freePort } from '#shared/local/freePort.ts';
import { removeTenantAccount } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { PortTakenError } from '#services/executor/ports/portCheck.ts';
import { erpConfigFile } from '#services/executor/runtime/erpConfigFile.ts';
import { DEFAULT_ERP_SERVER } from '#services/executor/runtime/erpOptions.ts';
import { pidFilePath, readPidFile } from '#services/executor/runtime/process/pidFile.ts';
import { ProcessRuntime } from '#services/executor/runtime/process/processRuntime.ts';
import type { ErpRunSpec } from '#services/executor/runtime/runtime.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';

/** Issue 25: with FORJA_ERP_WORKERS the server gets workers and a gevent port of its own, kept like its HTTP port. */
describe('process runtime: an ERP server with workers', function () {
  this.timeout(60_000);
  let root: string;
  let spec: ErpRunSpec;
  let runtime: ProcessRuntime;

  before(async () => {
    const url = new URL(await createTestDatabase('erp_workers'));
    root = runDir('process-runtime-workers');
    const slug = `work-${randomBytes(3).toString('hex')}`;
    spec = {
      slug,
      erpVersion: '17.0',
      edition: 'community',
      database: url.pathname.slice(1),
      db: { host: url.hostname, port: Number(url.port), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
      sourceDir: null,
      addonsPath: [],
      dataDir: instanceDir(root, slug),
      logFile: instanceLogFile(root, slug, 'erp'),
      root,
      tenant: { kind: 'instance', slug },
      server: { ...DEFAULT_ERP_SERVER, workers: 2, limitTimeRealS: 600 },
    };
    runtime = new ProcessRuntime({ dataDir: root, stopGraceMs: 3_000, pollIntervalMs: 50 });
    onTeardown(async () => removeTenantAccount('instance', slug));
    onTeardown(async () => runtime.stop(slug));
    await runtime.runOnce(spec, ['-i', 'base', '--stop-after-init']);
  });

  after(async () => {
    await runtime?.close();
  });

  it('a one-shot run gets no workers: it serves no HTTP', () => {
    const text = readFileSync(erpConfigFile(spec.dataDir), 'utf8');
    expect(text).to.include('workers = 0').and.not.include('gevent_port');
  });

  it('refuses to start workers without a gevent port, before anything runs', async () => {
    const error = await runtime.start(spec, await freePort()).then(() => null, (caught: Error) => caught);
    expect(error?.message).to.contain('runs 2 workers but was given no gevent port');
    expect(readPidFile(pidFilePath(root, spec.slug))).to.equal(null);
  });

  it('refuses a gevent port something else holds, naming it', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as { port: number }).port;
    try {
      const error = await runtime.start(spec, await freePort(), taken).then(() => null, (caught: Error) => caught);
      expect(error).to.be.instanceOf(PortTakenError);
      expect(error?.message).to.contain(String(taken));
      expect(readPidFile(pidFilePath(root, spec.slug))).to.equal(null);
    } finally {
      holder.close();
    }
  });

  it('writes workers, the limits and the gevent port, records the port and returns its URL; an adopting executor returns it too', async () => {
    const [port, geventPort] = [await freePort(), await freePort()];
    const urls = await runtime.start(spec, port, geventPort);
    expect(urls).to.deep.equal({ url: `http://127.0.0.1:${port}`, geventUrl: `http://127.0.0.1:${geventPort}` });
    const text = readFileSync(erpConfigFile(spec.dataDir), 'utf8');
    expect(text).to.include('workers = 2').and.include(`gevent_port = ${geventPort}`).and.include('limit_time_real = 600');
    expect(readPidFile(pidFilePath(root, spec.slug))).to.include({ port, geventPort });
    const next = new ProcessRuntime({ dataDir: root, stopGraceMs: 3_000, pollIntervalMs: 50 });
    try {
      expect(await next.start(spec, port, geventPort)).to.deep.equal(urls);
    } finally {
      await next.close();
    }
  });
});
