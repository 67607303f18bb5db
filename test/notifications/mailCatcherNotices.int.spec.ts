import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { mailerFor, noticeWiring } from '#projections/notices/noticeWiring.ts';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { catcherMailer } from '#services/notifications/mailer.ts';
import { loadNotificationSettings } from '#services/notifications/notifications.settings.ts';
import { loadConfig } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import type { Infrastructure } from '#shared/platform/infrastructure.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import { freePort } from '#test/support/freePort.ts';
import { maildevSubjectsWith } from '#test/support/maildev.ts';
import { migrationStory } from '#test/support/migrationStory.ts';
import { noticeHarness } from '#test/support/noticeHarness.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';

const MAIL = { from: 'forja@example.com', to: ['ops@example.com'], subject: 'catcher check', text: 'hello', messageId: '<catcher-check@forja>' };

describe('notices without FORJA_SMTP_URL go to the mail catcher', function () {
  this.timeout(60_000);
  const h = noticeHarness();

  it('are wired to the catcher\'s SMTP port when the catcher is on, and not when it is off or FORJA_SMTP_URL is set', () => {
    const settings = loadNotificationSettings({});
    expect(noticeWiring(settings, loadConfig({ FORJA_MAILCATCHER_SMTP_PORT: '2525' })).mailCatcherSmtpUrl).to.equal('smtp://127.0.0.1:2525');
    expect(noticeWiring(settings, loadConfig({ FORJA_MAILCATCHER: 'false' })).mailCatcherSmtpUrl).to.equal(undefined);
    const wiring = noticeWiring(loadNotificationSettings({ FORJA_SMTP_URL: 'smtp://mail.example.com:587' }), loadConfig({}));
    expect(mailerFor(wiring, silentLogger).describe).to.equal('smtp://mail.example.com:587');
  });

  it('lands in the running catcher (maildev), recorded as sent by smtp', async () => {
    const [smtpPort, dataDir] = [await freePort(), runDir('notices-catcher')];
    const catcher: ForjaProcess = await startMailCatcherProcess(
      {} as Infrastructure,
      loadConfig({ FORJA_DATA_DIR: dataDir, FORJA_MAILCATCHER_SMTP_PORT: String(smtpPort) }),
      silentLogger,
    );
    try {
      await h.start({ mailCatcherSmtpUrl: `smtp://127.0.0.1:${smtpPort}` });
      const story = migrationStory(h.store);
      await story.tell(story.create());
      await story.toGate('r1');
      await waitUntil(async () => (await h.outcomes(story.slug)).length === 1, 'the gate notice sent');
      const subject = `[Forja] ${story.settings.name}: run 1 waits at gate approve`;
      expect(await maildevSubjectsWith(dataDir, subject)).to.deep.equal([subject]);
      expect((await h.outcomes(story.slug))[0]!.data).to.deep.include({ via: 'smtp' });
    } finally {
      await catcher.stop();
    }
  });

  it('are written as .eml files while the catcher is not running, recorded as sent by file', async () => {
    const folder = runDir('catcher-down-mail');
    await h.start({ mailCatcherSmtpUrl: `smtp://127.0.0.1:${await freePort()}`, mailFolder: folder });
    const story = migrationStory(h.store);
    await story.tell(story.create());
    await story.toGate('r1');
    await waitUntil(async () => (await h.outcomes(story.slug)).length === 1, 'the gate notice recorded');
    expect((await h.outcomes(story.slug))[0]!.data).to.deep.include({ via: 'file' });
    const files = readdirSync(folder).filter((name) => name.endsWith('.eml'));
    expect(files).to.have.length(1);
    expect(readFileSync(`${folder}/${files[0]}`, 'utf8')).to.include('waits at gate approve');
  });

  it('are not written to a file when a catcher answers but refuses them: the error stands, for the sender to retry', async () => {
    const refusing = await h.smtp('refuse');
    const folder = runDir('catcher-refuses-mail');
    const mailer = catcherMailer(refusing.url, folder, { timeoutMs: 2000 }, silentLogger);
    try {
      const error = await mailer.send(MAIL, AbortSignal.timeout(10_000)).then(() => undefined, (failure: Error) => failure);
      expect(error?.message).to.match(/421/);
      expect(existsSync(folder) ? readdirSync(folder) : []).to.deep.equal([]);
    } finally {
      mailer.close();
    }
  });
});
