import { expect } from 'chai';
import pg from 'pg';
import { neutralizeDatabase } from '#services/executor/database/neutralize.ts';
import { mailboxLogin } from '#shared/mail/mailboxLogin.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { ERP_TABLES } from './fixtures/databaseFixtures.ts';

describe('neutralization gives a copy its instance\'s mailbox login at the catcher', function () {
  this.timeout(30_000);
  let client: pg.Client;
  beforeEach(async () => {
    client = new pg.Client({ connectionString: await createTestDatabase('neutral_mailbox') });
    await client.connect();
    await client.query(ERP_TABLES);
  });
  afterEach(() => client?.end());

  const placeholder = async () => (await client.query<{ smtp_host: string; smtp_port: number; smtp_user: string | null; smtp_pass: string | null }>(`select smtp_host, smtp_port, smtp_user, smtp_pass from ir_mail_server where active`)).rows;

  it('sets smtp_user and smtp_pass, so the ERP logs in and its mail is kept for it alone', async () => {
    const login = mailboxLogin('key', 'acme-staging');
    await neutralizeDatabase(client, undefined, { host: '127.0.0.1', port: 2525, login });
    expect(await placeholder()).to.deep.equal([{ smtp_host: '127.0.0.1', smtp_port: 2525, smtp_user: login.user, smtp_pass: login.pass }]);
  });

  it('gives a copy neutralized before mailboxes its login, once', async () => {
    await neutralizeDatabase(client, undefined, { host: '127.0.0.1', port: 2525 });
    expect((await placeholder())[0]).to.deep.include({ smtp_user: null, smtp_pass: null });
    const login = mailboxLogin('key', 'acme-staging');
    const changed = (await neutralizeDatabase(client, undefined, { host: '127.0.0.1', port: 2525, login })).filter((step) => step.what.startsWith('placeholder'));
    expect(changed.map((step) => step.rows)).to.deep.equal([1]);
    expect((await placeholder())[0]).to.deep.include({ smtp_user: login.user, smtp_pass: login.pass });
    const again = (await neutralizeDatabase(client, undefined, { host: '127.0.0.1', port: 2525, login })).filter((step) => step.what.startsWith('placeholder'));
    expect(again.map((step) => step.rows), 'a re-run changes nothing').to.deep.equal([0]);
  });
});
