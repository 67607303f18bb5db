import { expect } from 'chai';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { neutralizeDatabase } from '#services/executor/database/neutralize.ts';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { loadConfig } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import type { Infrastructure } from '#shared/platform/infrastructure.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import { freePort } from '#test/support/freePort.ts';
import { maildevSubjectsWith } from '#test/support/maildev.ts';
import { runDir } from '#test/support/runDir.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { ERP_TABLES } from './fixtures/databaseFixtures.ts';

const PLACEHOLDER = 'neutralization - disable emails';
const placeholderRows = (what: { what: string; rows: number }[]) => what.filter((step) => step.what.startsWith('placeholder')).map((step) => step.rows);

describe('neutralization points a copy\'s outgoing mail at the mail catcher', function () {
  this.timeout(60_000);
  let client: pg.Client;
  let catcher: ForjaProcess;
  let smtpPort: number;
  let dataDir: string;

  before(async () => {
    [smtpPort, dataDir] = [await freePort(), runDir('neutral-mail')];
    catcher = await startMailCatcherProcess({} as Infrastructure, loadConfig({ FORJA_DATA_DIR: dataDir, FORJA_MAILCATCHER_SMTP_PORT: String(smtpPort) }), silentLogger);
  });
  after(() => catcher?.stop());
  beforeEach(async () => {
    client = new pg.Client({ connectionString: await createTestDatabase('neutral_mail') });
    await client.connect();
    await client.query(ERP_TABLES);
  });
  afterEach(() => client?.end());

  const activeServers = async () => (await client.query<{ name: string; smtp_host: string; smtp_port: number }>('select name, smtp_host, smtp_port from ir_mail_server where active')).rows;

  it('leaves only the placeholder active, at the catcher, and mail sent through it is caught', async () => {
    const done = await neutralizeDatabase(client, undefined, { host: '127.0.0.1', port: smtpPort });
    expect(placeholderRows(done)).to.deep.equal([1]);
    const servers = await activeServers();
    expect(servers).to.deep.equal([{ name: PLACEHOLDER, smtp_host: '127.0.0.1', smtp_port: smtpPort }]);
    // What the ERP does with its active server: plain SMTP, no TLS (smtp_encryption none).
    const server = servers[0]!;
    const subject = `Invoice INV/0001 ${Date.now()}`;
    await nodemailer.createTransport({ host: server.smtp_host, port: server.smtp_port, secure: false, ignoreTLS: true }).sendMail({ from: 'erp@example.com', to: 'customer@example.com', subject, text: 'your invoice' });
    expect(await maildevSubjectsWith(dataDir, subject)).to.include(subject);
  });

  it('keeps the dead host `invalid` without a catcher, and moves an earlier placeholder to the catcher once there is one', async () => {
    await neutralizeDatabase(client);
    expect(await activeServers()).to.deep.equal([{ name: PLACEHOLDER, smtp_host: 'invalid', smtp_port: 1025 }]);
    expect(placeholderRows(await neutralizeDatabase(client, undefined, { host: '127.0.0.1', port: smtpPort }))).to.deep.equal([1]);
    expect(await activeServers()).to.deep.equal([{ name: PLACEHOLDER, smtp_host: '127.0.0.1', smtp_port: smtpPort }]);
    expect(placeholderRows(await neutralizeDatabase(client, undefined, { host: '127.0.0.1', port: smtpPort })), 'a re-run changes nothing').to.deep.equal([0]);
  });
});
