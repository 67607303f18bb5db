import { expect } from 'chai';
import { readModelOf } from '#projections/readModel.ts';
import { recoverAfterRestart } from '#services/executor/platformLifecycle.ts';
import type { Runtime } from '#services/executor/runtime/runtime.ts';
import type { Bus } from '#shared/bus/bus.ts';
import { silentLogger } from '#shared/log.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

/** `npm start` again: the in-process bus forgot the work it held, so live migration runs are queued again. */
describe('migration runs after the platform restarts', function () {
  this.timeout(60_000);
  let platform: TestPlatform;

  before(async () => {
    platform = await startTestPlatform();
    await platform.createUser('dev@example.com', 'developer');
  });
  after(() => platform?.stop());

  const call = (path: string, json?: unknown) =>
    fetch(`${platform.urls.controlPlane}${path}`, {
      method: 'POST',
      headers: { authorization: basic('dev@example.com'), 'content-type': 'application/json' },
      body: JSON.stringify(json ?? {}),
    });
  const recover = async () => {
    const published: Array<{ subject: string; msgId: string | undefined; type: string }> = [];
    const bus = { publishWork: async (subject: string, data: Uint8Array, options?: { msgId?: string }) => {
      published.push({ subject, msgId: options?.msgId, type: (JSON.parse(new TextDecoder().decode(data)) as { type: string }).type });
      return { duplicate: false };
    } } as unknown as Bus;
    const runtime = { kind: 'process', running: async () => new Map() } as unknown as Runtime;
    const recovered = await recoverAfterRestart({ store: platform.infra.store, bus, readModel: readModelOf(platform.infra.db), runtime, logger: silentLogger });
    return { recovered, published };
  };

  it('queues a run that was queued or running again, with its request as the message, and leaves a paused one alone', async () => {
    const created = await call('/api/v1/migrations', { name: 'Restarted', origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/a.dump' });
    expect(created.status).to.equal(201);
    expect((await call('/api/v1/migrations/restarted/run')).status).to.equal(201);
    const { recovered, published } = await recover();
    expect(recovered.migrations).to.deep.equal(['restarted#1']);
    expect(published).to.have.length(1);
    expect(published[0]).to.include({ subject: 'work.migration', type: 'MigrationRunRequested' });
    const { events } = await platform.infra.store.readStream('migration-restarted');
    expect(published[0]!.msgId, 'the event id: a real bus de-duplicates it').to.equal(events.find((event) => event.type === 'MigrationRunRequested')!.id);

    expect((await call('/api/v1/migrations/restarted/pause')).status).to.equal(200);
    expect((await recover()).recovered.migrations, 'a paused run waits for resume').to.deep.equal([]);
    expect((await call('/api/v1/migrations/restarted/resume')).status).to.equal(200);
    const resumed = await recover();
    expect(resumed.published.map((message) => message.type), 'the resume set it going last').to.deep.equal(['MigrationJobResumed']);
  });
});
