import { expect } from 'chai';
import { queuedNotices } from '#projections/notices/noticeOutbox.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { migrationStory } from '#test/support/migrationStory.ts';
import { noticeHarness } from '#test/support/noticeHarness.ts';
import { waitUntil } from '#test/support/wait.ts';

/**
 * SMTP servers that refuse or never answer: the sender retries with backoff, bounds every
 * attempt, records the failure, and holds up neither the projections nor its own shutdown.
 */
describe('migration notices: refusals, timeouts and retries', function () {
  this.timeout(60_000);
  const h = noticeHarness();

  it('records the addresses the server refused beside those it took, and a notice nobody could take as failed', async () => {
    const server = await h.smtp('reject-nobody');
    await h.start({ smtpUrl: server.url, attempts: 1 });
    const some = migrationStory(h.store, { notifyTo: ['ops@example.com', 'nobody@example.com'] });
    await some.tell(some.create());
    await some.toGate('r1');
    const none = migrationStory(h.store, { notifyTo: ['nobody@example.com'] });
    await none.tell(none.create());
    await none.toGate('r1');
    await waitUntil(async () => (await h.outcomes(some.slug)).length === 1 && (await h.outcomes(none.slug)).length === 1, 'both outcomes');
    expect((await h.outcomes(some.slug))[0]!.data).to.deep.include({ to: ['ops@example.com'], rejected: ['nobody@example.com'] });
    expect(server.received.map((mail) => mail.rcptTo)).to.deep.equal([['ops@example.com']]);
    const [failed] = await h.outcomes(none.slug);
    expect(failed!.type).to.equal('MigrationNoticeFailed');
    expect((failed!.data as { error: string }).error).to.match(/550/);
  });

  it('retries a refusing server with growing waits while the projections keep up, then records the notice as failed', async () => {
    const server = await h.smtp('refuse');
    await h.start({ smtpUrl: server.url, attempts: 4, retryMs: 200 });
    const story = migrationStory(h.store);
    await story.tell(story.create());
    const { lastGlobalPosition } = await story.toGate('r1');
    await waitForPosition(h.readModel, 'erp_migrations', lastGlobalPosition, { timeoutMs: 2000 });
    await waitForPosition(h.readModel, 'migration_notices', lastGlobalPosition, { timeoutMs: 2000 });
    expect(await h.outcomes(story.slug), 'still trying while the read model is already current').to.deep.equal([]);

    await waitUntil(async () => (await h.outcomes(story.slug)).length === 1, 'the failure recorded', 20_000);
    const [failed] = await h.outcomes(story.slug);
    expect(failed!.type).to.equal('MigrationNoticeFailed');
    expect(failed!.data).to.deep.include({ kind: 'gate', attempts: 4, to: ['ops@example.com', 'ana@example.com'] });
    expect((failed!.data as { error: string }).error).to.match(/421/);
    expect(server.connectedAt).to.have.length(4);
    const waits = server.connectedAt.slice(1).map((at, i) => at - server.connectedAt[i]!);
    expect(waits[0]).to.be.within(150, 1500);
    expect(waits[1]).to.be.above(350);
    expect(waits[2]).to.be.above(750);
    await h.queueEmptied();
  });

  it('cuts each attempt at a server that never answers at the attempt timeout, then records the notice as failed', async () => {
    const silent = await h.silent();
    // The SMTP timeouts alone would wait 10 s for the greeting: the attempt's own bound ends it first.
    await h.start({ smtpUrl: silent.url, smtpTimeoutMs: 10_000, attemptTimeoutMs: 500, attempts: 2, retryMs: 100 });
    const story = migrationStory(h.store);
    await story.tell(story.create());
    const began = Date.now();
    const { lastGlobalPosition } = await story.toGate('r1');
    await waitForPosition(h.readModel, 'erp_migrations', lastGlobalPosition, { timeoutMs: 2000 });
    await waitUntil(async () => (await h.outcomes(story.slug)).length === 1, 'the failure recorded', 10_000);
    expect(Date.now() - began, 'two attempts of 500 ms and a 100 ms wait').to.be.below(3000);
    const [failed] = await h.outcomes(story.slug);
    expect(failed!.type).to.equal('MigrationNoticeFailed');
    expect((failed!.data as { error: string }).error).to.match(/^no answer within 500 ms/);
    expect(silent.connectedAt).to.have.length(2);
  });

  it('gives up on a server that stops answering after the SMTP timeout', async () => {
    const silent = await h.silent();
    await h.start({ smtpUrl: silent.url, smtpTimeoutMs: 300, attemptTimeoutMs: 10_000, attempts: 1 });
    const story = migrationStory(h.store);
    await story.tell(story.create());
    await story.toGate('r1');
    await waitUntil(async () => (await h.outcomes(story.slug)).length === 1, 'the failure recorded', 5000);
    expect((await h.outcomes(story.slug))[0]!.data).to.deep.include({ attempts: 1, error: 'Greeting never received' });
  });

  it('stops promptly while an attempt hangs, and the interrupted attempt does not count', async () => {
    const silent = await h.silent();
    await h.start({ smtpUrl: silent.url, smtpTimeoutMs: 30_000, attemptTimeoutMs: 60_000 });
    const story = migrationStory(h.store);
    await story.tell(story.create());
    await story.toGate('r1');
    await waitUntil(() => silent.connectedAt.length === 1, 'the attempt to connect');
    const stopping = Date.now();
    await h.stopProjector();
    expect(Date.now() - stopping).to.be.below(1000);
    expect((await queuedNotices(h.readModel)).map((row) => row.attempts)).to.deep.equal([0]);
    expect(await h.outcomes(story.slug)).to.deep.equal([]);
  });
});
