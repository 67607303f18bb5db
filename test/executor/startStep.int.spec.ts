import { expect } from 'chai';
import { STEPS } from '#services/executor/jobs/steps.ts';
import type { StepEnvironment } from '#services/executor/jobs/stepEnvironment.ts';
import { DEFAULT_ERP_SERVER } from '#services/executor/runtime/erpOptions.ts';
import type { ErpRunSpec, Runtime } from '#services/executor/runtime/runtime.ts';
import type { LiveInstance, StepFacts } from '#services/instances/domain/instance.ts';
import { runDir } from '#test/support/runDir.ts';

/** Issue 25: the start step gives an ERP with workers a second port (gevent, `/websocket`), chosen once and kept like its HTTP port. */
describe('the start step: ports of an ERP with and without workers', () => {
  const root = runDir('start-step');

  /** Runs the start step with `workers` and the facts an earlier start left; returns its facts and what the runtime was asked. */
  async function start(workers: number, facts: StepFacts) {
    const allocated = [21000, 21001, 21002];
    const asked: Array<{ port: number; geventPort: number | undefined }> = [];
    const runtime = {
      start: async (_spec: ErpRunSpec, port: number, geventPort?: number) => {
        asked.push({ port, geventPort });
        return { url: `http://127.0.0.1:${port}`, ...(geventPort ? { geventUrl: `http://127.0.0.1:${geventPort}` } : {}) };
      },
    } as unknown as Runtime;
    const env = {
      // A recorded addons path: the start step computes one only for instances built before it was recorded (instanceAddons.unit.spec.ts).
      instance: { slug: 'acme-dev', facts: { addonsPath: [], ...facts } } as LiveInstance,
      dataDir: root,
      runtime,
      databases: () => ({ ensureRole: async () => undefined }),
      ports: { allocate: async () => allocated.shift()! },
      spec: { database: 'forja_acme_dev', server: { ...DEFAULT_ERP_SERVER, workers } } as ErpRunSpec,
    } as unknown as StepEnvironment;
    return { facts: await STEPS.start!(env), asked };
  }

  it('threaded: one port, no gevent process', async () => {
    expect(await start(0, {})).to.deep.equal({ facts: { url: 'http://127.0.0.1:21000', port: 21000 }, asked: [{ port: 21000, geventPort: undefined }] });
  });

  it('workers: a second port at the first start, recorded with its URL', async () => {
    const { facts, asked } = await start(4, {});
    expect(asked).to.deep.equal([{ port: 21000, geventPort: 21001 }]);
    expect(facts).to.deep.equal({ url: 'http://127.0.0.1:21000', port: 21000, geventPort: 21001, geventUrl: 'http://127.0.0.1:21001' });
  });

  it('workers: the kept ports at every later start, a gevent port added when workers are turned on later', async () => {
    expect((await start(2, { port: 22000, geventPort: 22001 })).asked).to.deep.equal([{ port: 22000, geventPort: 22001 }]);
    expect((await start(2, { port: 22000 })).asked).to.deep.equal([{ port: 22000, geventPort: 21000 }]);
    expect((await start(0, { port: 22000, geventPort: 22001 })).facts, 'workers off: no gevent URL').to.deep.equal({ url: 'http://127.0.0.1:22000', port: 22000 });
  });
});
