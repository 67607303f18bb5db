import { expect } from 'chai';
import type { MigrationEvent, MigrationSettings } from '#services/migrations/domain/migration.ts';
import { composeNoticeMail, noticeFor, type MigrationNotice } from '#services/notifications/migrationNotice.ts';
import { noticeMessageId, noticeOutcomeId } from '#services/notifications/noticeEvents.ts';
import { loadNotificationSettings, publicUrlOf } from '#services/notifications/notifications.settings.ts';
import { ConfigError } from '#shared/config/config.ts';
import { backoffMs } from '#projections/notices/noticeSender.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';

const settings: MigrationSettings = {
  slug: 'acme-17',
  name: 'Acme upgrade',
  origin: '16.0',
  destination: '17.0',
  flavor: 'community',
  engine: 'openupgrade',
  purpose: 'production',
  contract: null,
  notifyTo: ['ops@example.com', 'ana@example.com'],
  input: { mode: 'pull', pullUrl: 'https://files.example.com/acme.dump' },
  recipe: { key: 'community.16.0-17.0', sha256: 'a'.repeat(64), text: 'format: 1' },
  workingDatabase: 'mig_acme_17',
};
const created: MigrationEvent = { type: 'MigrationCreated', data: settings };
const requested: MigrationEvent = {
  type: 'MigrationRunRequested',
  data: { slug: 'acme-17', number: 3, jobId: 'r3', kind: 'run', plan: [], resumedFrom: null, reused: {}, skipped: [], skipPreflight: false },
};
const stepFailed: MigrationEvent = {
  type: 'MigrationStepFailed',
  data: { slug: 'acme-17', number: 3, jobId: 'r3', step: 'upgrade', durationMs: 5, error: 'upgrade: division by zero', retryable: false, logTail: Array.from({ length: 30 }, (_, i) => `line ${i + 1}`) },
};
const at = '2026-11-23T10:00:00.000Z';
const source = (type: string, data: object) => ({ id: '6f1c2a44-0000-4000-8000-000000000001', type, data: { slug: 'acme-17', number: 3, jobId: 'r3', ...data }, metadata: { at } });

describe('migration notices (message builder)', () => {
  it('builds a success notice for every notify-to address, with the route and the run', () => {
    const notice = noticeFor(source('MigrationJobSucceeded', {}), [created, requested]);
    expect(notice).to.deep.equal({
      eventId: '6f1c2a44-0000-4000-8000-000000000001',
      kind: 'succeeded',
      slug: 'acme-17',
      name: 'Acme upgrade',
      run: 3,
      to: ['ops@example.com', 'ana@example.com'],
      route: { origin: '16.0', destination: '17.0', flavor: 'community', engine: 'openupgrade', purpose: 'production' },
      step: null,
      message: null,
      logTail: [],
      at,
    });
    const mail = composeNoticeMail(notice!, 'https://forja.example.com');
    expect(mail.subject).to.equal('[Forja] Acme upgrade: run 3 succeeded');
    expect(mail.link).to.equal('https://forja.example.com/migrations/acme-17/runs/3');
    expect(mail.text).to.include('Route:   16.0 -> 17.0, community, openupgrade (production)').and.include('Status:  migrated').and.include(mail.link);
  });

  it('says at which step a run failed, with the error and the last 20 lines of that step\'s log', () => {
    const notice = noticeFor(source('MigrationJobFailed', { step: 'upgrade', error: 'upgrade: division by zero' }), [created, requested, stepFailed])!;
    expect(notice).to.include({ kind: 'failed', step: 'upgrade', message: 'upgrade: division by zero' });
    expect(notice.logTail).to.deep.equal(Array.from({ length: 20 }, (_, i) => `line ${i + 11}`));
    const mail = composeNoticeMail(notice, 'http://127.0.0.1:8081');
    expect(mail.subject).to.equal('[Forja] Acme upgrade: run 3 failed at step upgrade');
    expect(mail.text).to.include('Status:  errored').and.include('Error:   upgrade: division by zero').and.include('  line 30').and.not.include('  line 10\n');
    expect(mail.text).to.include('http://127.0.0.1:8081/migrations/acme-17/runs/3');
  });

  it('says at which gate a run waits, with the gate\'s question', () => {
    const notice = noticeFor(source('MigrationGateReached', { step: 'approve', message: 'Check the backup, then approve' }), [created, requested])!;
    const mail = composeNoticeMail(notice, 'https://forja.example.com/');
    expect(mail.subject).to.equal('[Forja] Acme upgrade: run 3 waits at gate approve');
    expect(mail.text).to.include('Status:  waiting').and.include('Asks:    Check the backup, then approve').and.include('Approve or reject it on the run\'s page: https://forja.example.com/migrations/acme-17/runs/3');
  });

  it('tells nobody when the migration had no notify-to list at the event, and follows an edit of the list', () => {
    const quiet: MigrationEvent = { type: 'MigrationCreated', data: { ...settings, notifyTo: [] } };
    expect(noticeFor(source('MigrationJobSucceeded', {}), [quiet, requested])).to.equal(null);
    const edited: MigrationEvent = { type: 'MigrationEdited', data: { slug: 'acme-17', changes: { notifyTo: ['new@example.com'] } } };
    expect(noticeFor(source('MigrationJobSucceeded', {}), [quiet, requested, edited])?.to).to.deep.equal(['new@example.com']);
  });

  it('ignores other events and migrations it never saw created', () => {
    expect(noticeFor(source('MigrationJobPaused', {}), [created, requested])).to.equal(null);
    expect(noticeFor(source('MigrationJobSucceeded', {}), [])).to.equal(null);
  });

  it('keeps the subject on one line whatever the name holds', () => {
    const notice = { ...noticeFor(source('MigrationJobSucceeded', {}), [created])!, name: 'Acme\r\nBcc: evil@example.com' } satisfies MigrationNotice;
    const { subject } = composeNoticeMail(notice, 'https://forja.example.com');
    expect(subject).to.equal('[Forja] Acme Bcc: evil@example.com: run 3 succeeded');
    expect(subject).not.to.match(/[\r\n]/);
  });

  it('gives each run event one outcome id (a UUID) and one Message-ID', () => {
    const id = noticeOutcomeId('6f1c2a44-0000-4000-8000-000000000001');
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(noticeOutcomeId('6f1c2a44-0000-4000-8000-000000000001')).to.equal(id);
    expect(noticeOutcomeId('6f1c2a44-0000-4000-8000-000000000002')).not.to.equal(id);
    expect(noticeMessageId('6f1c2a44-0000-4000-8000-000000000001', 'https://forja.example.com')).to.equal('<notice.6f1c2a44-0000-4000-8000-000000000001@forja.example.com>');
  });

  it('waits twice as long after each failed attempt, up to the cap', () => {
    const options = { retryMs: 30_000, maxRetryMs: 3_600_000 };
    expect([1, 2, 3, 7, 8, 20].map((attempts) => backoffMs(attempts, options))).to.deep.equal([30_000, 60_000, 120_000, 1_920_000, 3_600_000, 3_600_000]);
  });

  it("links to FORJA_PUBLIC_URL, else to web's own port on this machine", () => {
    expect(publicUrlOf({ FORJA_PUBLIC_URL: 'https://forja.example.com' }, { FORJA_HOST: '127.0.0.1', FORJA_WEB_PORT: 8081 })).to.equal('https://forja.example.com');
    expect(publicUrlOf({}, { FORJA_HOST: '0.0.0.0', FORJA_WEB_PORT: 8081 })).to.equal('http://127.0.0.1:8081');
    expect(publicUrlOf({}, { FORJA_HOST: '::1', FORJA_WEB_PORT: 9000 })).to.equal('http://[::1]:9000');
  });

  it('reads the notice settings with their defaults, and refuses a wrong one naming it', () => {
    expect(loadNotificationSettings({})).to.deep.equal({ FORJA_MAIL_FROM: 'Forja <forja@localhost>', FORJA_SMTP_TIMEOUT_S: 30, FORJA_NOTICE_ATTEMPTS: 10, FORJA_NOTICE_RETRY_S: 30, FORJA_NOTICE_MAX_AGE_H: 24 });
    expect(loadNotificationSettings({ FORJA_SMTP_URL: 'smtps://relay:secret@mail.example.com:465' }).FORJA_SMTP_URL).to.equal('smtps://relay:secret@mail.example.com:465');
    expect(() => loadNotificationSettings({ FORJA_SMTP_URL: 'http://mail.example.com' })).to.throw(ConfigError, /^configuration: FORJA_SMTP_URL must match/);
    expect(() => loadNotificationSettings({ FORJA_PUBLIC_URL: 'https://forja.example.com/' })).to.throw(ConfigError, /FORJA_PUBLIC_URL/);
    expect(() => loadNotificationSettings({ FORJA_NOTICE_ATTEMPTS: '0' })).to.throw(ConfigError, /FORJA_NOTICE_ATTEMPTS must be >= 1/);
  });

  for (const [type, data] of [
    ['MigrationNoticeSent', { slug: 'acme-17', number: 3, eventId: '6f1c2a44-0000-4000-8000-000000000001', kind: 'gate', attempts: 1, to: ['ops@example.com'], rejected: [], messageId: '<x@y>', via: 'smtp' }],
    ['MigrationNoticeFailed', { slug: 'acme-17', number: 3, eventId: '6f1c2a44-0000-4000-8000-000000000001', kind: 'failed', attempts: 10, to: ['ops@example.com'], error: 'connect ECONNREFUSED' }],
  ] as const) {
    it(`${type} matches schemas/events/${type}.v1.json`, () => {
      const validate = schemaValidator(`events/${type}.v1.json`);
      expect(validate(data), describeErrors(validate)).to.equal(true);
      expect(validate({ ...data, eventId: 'not-a-uuid' })).to.equal(false);
    });
  }
});
