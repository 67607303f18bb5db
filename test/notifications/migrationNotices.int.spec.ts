import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { queueNotice, queuedNotices } from '#projections/notices/noticeOutbox.ts';
import { resetCheckpoint } from '#projections/runner/checkpoints.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { migrationStream } from '#services/migrations/domain/migration.ts';
import { noticeFor } from '#services/notifications/migrationNotice.ts';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { migrationStory } from '#test/support/migrationStory.ts';
import { noticeHarness, PUBLIC_URL } from '#test/support/noticeHarness.ts';
import { runDir } from '#test/support/runDir.ts';
import { parseMessage } from '#test/support/smtpServer.ts';
import { waitUntil } from '#test/support/wait.ts';

/**
 * The notice reactor and sender in the real projector, on a real event store, sending to a real
 * SMTP server on 127.0.0.1, or to the local mail folder.
 */
describe('migration notices: delivery', function () {
  this.timeout(60_000);
  const h = noticeHarness();

  it('mails the gate, the failure and the success to every notify-to address, with the subject and the link, and records each as sent', async () => {
    const server = await h.smtp();
    await h.start({ smtpUrl: server.url });
    const story = migrationStory(h.store);
    await story.tell(story.create());
    await story.toGate('r1');
    await waitUntil(() => server.received.length === 1, 'the gate notice');
    await story.tell(story.approve(1), story.start('r1', 'upgrade'), story.fail('r1', 'upgrade', 'upgrade: division by zero'));
    await waitUntil(() => server.received.length === 2, 'the failure notice');
    await story.tell(story.run('r2'), story.start('r2', 'upgrade'), story.complete('r2', 'upgrade'));
    await waitUntil(() => server.received.length === 3, 'the success notice');

    const name = story.settings.name;
    expect(server.received.map((mail) => mail.headers['subject'])).to.deep.equal([
      `[Forja] ${name}: run 1 waits at gate approve`,
      `[Forja] ${name}: run 1 failed at step upgrade`,
      `[Forja] ${name}: run 2 succeeded`,
    ]);
    const runs = [1, 1, 2];
    server.received.forEach((mail, i) => {
      expect(mail.rcptTo).to.deep.equal(['ops@example.com', 'ana@example.com']);
      expect(mail.headers['to']).to.equal('ops@example.com, ana@example.com');
      expect(mail.mailFrom).to.equal('forja@example.com');
      expect(mail.text).to.include(`${PUBLIC_URL}/migrations/${story.slug}/runs/${runs[i]}`);
    });
    expect(server.received[0]!.text).to.include('Check the origin backup, then approve');
    expect(server.received[1]!.text).to.include('Error:   upgrade: division by zero');

    const about = [...(await h.runEvents(story.slug, 'MigrationGateReached')), ...(await h.runEvents(story.slug, 'MigrationJobFailed')), ...(await h.runEvents(story.slug, 'MigrationJobSucceeded'))];
    await waitUntil(async () => (await h.outcomes(story.slug)).length === 3, 'three outcomes');
    const recorded = await h.outcomes(story.slug);
    expect(recorded.map((event) => [event.type, event.data.eventId, event.data.kind])).to.deep.equal(about.map((event, i) => ['MigrationNoticeSent', event.id, ['gate', 'failed', 'succeeded'][i]]));
    expect(recorded[0]!.data).to.deep.include({ to: ['ops@example.com', 'ana@example.com'], rejected: [], via: 'smtp', attempts: 1, number: 1 });
    expect(server.received.map((mail) => mail.headers['message-id'])).to.deep.equal(recorded.map((event) => (event.data as { messageId: string }).messageId));
    expect(recorded[0]!.metadata).to.include({ causationId: about[0]!.id, correlationId: about[0]!.metadata.correlationId, actor: 'system' });
    await h.queueEmptied();
  });

  it('sends nothing twice: not when the reactor replays the feed, nor when a sent notice is still queued after a crash', async () => {
    const server = await h.smtp();
    await h.start({ smtpUrl: server.url });
    const story = migrationStory(h.store);
    await story.tell(story.create());
    await story.toGate('r1');
    await waitUntil(async () => (await h.outcomes(story.slug)).length === 1, 'the notice recorded');
    await h.stopProjector();

    // The reactor reads the whole feed again, as after a lost checkpoint.
    await resetCheckpoint(h.readModel, 'migration_notices');
    await h.start({ smtpUrl: server.url });
    await waitForPosition(h.readModel, 'migration_notices', await h.store.headPosition());
    expect(await queuedNotices(h.readModel)).to.deep.equal([]);

    // The sender crashed after recording the outcome, before taking the notice off its queue.
    const [gate] = (await h.runEvents(story.slug, 'MigrationGateReached')) as RecordedEvent[];
    const history = (await h.store.readStream(migrationStream(story.slug))).events.map(({ type, data }) => ({ type, data })) as Parameters<typeof noticeFor>[1];
    await queueNotice(h.readModel, noticeFor(gate!, history)!, 'c', new Date());
    await waitUntil(async () => (await queuedNotices(h.readModel)).length === 0, 'the stale notice dropped');

    // A new run event still gets its notice: the pipeline was live all along.
    await story.tell(story.approve(1), story.start('r1', 'upgrade'), story.complete('r1', 'upgrade'));
    await waitUntil(() => server.received.length === 2, 'the success notice');
    expect(server.received.map((mail) => mail.headers['subject'])).to.deep.equal([`[Forja] ${story.settings.name}: run 1 waits at gate approve`, `[Forja] ${story.settings.name}: run 1 succeeded`]);
    await waitUntil(async () => (await queuedNotices(h.readModel)).length === 0, 'the success notice recorded');
    expect((await h.outcomes(story.slug)).map((event) => event.type)).to.deep.equal(['MigrationNoticeSent', 'MigrationNoticeSent']);
  });

  it('mails nobody for a migration without notify-to', async () => {
    const server = await h.smtp();
    await h.start({ smtpUrl: server.url });
    const quiet = migrationStory(h.store, { notifyTo: [] });
    await quiet.tell(quiet.create());
    await quiet.toGate('r1');
    const told = migrationStory(h.store);
    await told.tell(told.create());
    await told.toGate('r1');
    await waitUntil(() => server.received.length === 1, 'the other migration\'s notice');
    await waitForPosition(h.readModel, 'migration_notices', await h.store.headPosition());
    expect(server.received[0]!.headers['subject']).to.include(told.settings.name);
    await waitUntil(async () => (await h.outcomes(told.slug)).length === 1, 'the other notice recorded');
    expect(await h.outcomes(quiet.slug)).to.deep.equal([]);
    await h.queueEmptied();
  });

  it('without an SMTP server, writes each notice as an .eml file under the mail folder and logs where', async () => {
    const folder = runDir('notices-eml');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _encoding, done) => void (lines.push(chunk.toString()), done()) }));
    await h.start({ mailFolder: folder }, logger);
    const story = migrationStory(h.store);
    await story.tell(story.create());
    await story.toGate('r1');
    await waitUntil(async () => (await h.outcomes(story.slug)).length === 1, 'the notice recorded');
    const files = readdirSync(folder).filter((file) => file.endsWith('.eml'));
    expect(files).to.have.length(1);
    const { headers, text } = parseMessage(readFileSync(join(folder, files[0]!), 'utf8'));
    expect(headers['subject']).to.equal(`[Forja] ${story.settings.name}: run 1 waits at gate approve`);
    expect(headers['to']).to.equal('ops@example.com, ana@example.com');
    expect(text).to.include(`${PUBLIC_URL}/migrations/${story.slug}/runs/1`);
    expect((await h.outcomes(story.slug))[0]!.data).to.deep.include({ via: 'file', to: ['ops@example.com', 'ana@example.com'] });
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; file?: string }).find((line) => line.file);
    expect(logged).to.deep.include({ file: join(folder, files[0]!) });
    expect(logged!.msg).to.match(/FORJA_SMTP_URL is unset/);
  });

  it('mails nothing about run events older than the maximum age (a projector new to an old history)', async () => {
    const server = await h.smtp();
    const old = migrationStory(h.store);
    await old.tell(old.create());
    await old.toGate('r1');
    const [oldGate] = await h.runEvents(old.slug, 'MigrationGateReached');
    await waitUntil(() => Date.now() - oldGate!.recordedAt.getTime() > 1500, 'the first gate to be 1.5 s old', 5000);
    const fresh = migrationStory(h.store);
    await fresh.tell(fresh.create());
    await fresh.toGate('r1');
    await h.start({ smtpUrl: server.url, maxAgeMs: 1000 });
    await waitUntil(() => server.received.length === 1, 'the fresh gate\'s notice');
    await waitForPosition(h.readModel, 'migration_notices', await h.store.headPosition());
    expect(server.received[0]!.headers['subject']).to.include(fresh.settings.name);
    await waitUntil(async () => (await h.outcomes(fresh.slug)).length === 1, 'the fresh notice recorded');
    expect(await h.outcomes(old.slug)).to.deep.equal([]);
    await h.queueEmptied();
  });
});
