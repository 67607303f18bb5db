import { expect } from 'chai';
import { connect } from 'nats';
import { createNatsBus } from '../../services/shared/bus/natsBus.ts';
import { natsConnection } from '../../services/shared/bus/natsUrl.ts';
import { testNatsUrl } from '../support/nats.ts';
import { busContract } from './bus.contract.ts';

busContract('nats', async () => createNatsBus({ url: await testNatsUrl() }));

describe('nats bus', function () {
  it('creates the WORK stream as a file-backed work queue on work.>', async function () {
    const url = await testNatsUrl();
    const bus = await createNatsBus({ url });
    const nc = await connect(natsConnection(url));
    try {
      const info = await (await nc.jetstreamManager()).streams.info('WORK');
      expect(info.config).to.include({ retention: 'workqueue', storage: 'file', duplicate_window: 120_000_000_000 });
      expect(info.config.subjects).to.deep.equal(['work.>']);
    } finally {
      await nc.close();
      await bus.close();
    }
  });

  it('fails with a clear error when the server is unreachable', async function () {
    let error: unknown;
    await createNatsBus({ url: 'nats://127.0.0.1:1' }).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/^cannot connect to NATS at nats:\/\/127\.0\.0\.1:1: /);
  });
});
