import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

describe('npm run user', function () {
  this.timeout(90_000);
  let env: Record<string, string>;
  let platform: TestPlatform;

  before(async () => {
    env = { DATABASE_URL: await createTestDatabase('usercli'), FORJA_DATA_DIR: mkdtempSync(join(tmpdir(), 'forja-usercli-')), LOG_LEVEL: 'warn' };
  });
  after(() => platform?.stop());

  const user = (args: string[], input = '') =>
    spawnSync(process.execPath, ['--import', 'tsx', 'services/control-plane/identity/user.cli.ts', ...args], { env: { ...process.env, ...env }, input, encoding: 'utf8' });

  it('creates a user whose password then works on the API', async () => {
    const created = user(['create', '--email', 'Lucia@Example.com', '--role', 'developer', '--password-stdin'], 'a good password\n');
    expect(created.stderr).to.equal('');
    expect(created.stdout.trim()).to.equal('created lucia@example.com as developer');
    expect(created.status).to.equal(0);
    platform = await startTestPlatform([], env);
    await waitForPosition(platform.infra.db.withSchema('read_model'), 'users', await platform.infra.store.headPosition());
    const me = await fetch(`${platform.urls.controlPlane}/api/v1/me`, { headers: { authorization: basic('lucia@example.com', 'a good password') } });
    expect(await me.json()).to.include({ email: 'lucia@example.com', role: 'developer' });
  });

  it('refuses a duplicate e-mail, whatever its case', () => {
    const again = user(['create', '--email', 'LUCIA@example.com', '--role', 'admin', '--password-stdin'], 'another password');
    expect(again.status).to.equal(1);
    expect(again.stderr.trim()).to.equal('a user with e-mail lucia@example.com already exists');
  });

  it('changes the role, deactivates and reactivates', () => {
    expect(user(['set-role', '--email', 'lucia@example.com', '--role', 'admin']).stdout.trim()).to.equal('lucia@example.com is now admin');
    expect(user(['deactivate', '--email', 'lucia@example.com']).stdout.trim()).to.equal('lucia@example.com deactivated');
    expect(user(['reactivate', '--email', 'lucia@example.com']).stdout.trim()).to.equal('lucia@example.com reactivated');
  });

  const refusals: Array<[string, string[], string, number, RegExp]> = [
    ['a bad role', ['create', '--email', 'x@example.com', '--role', 'boss', '--password-stdin'], 'long enough', 2, /^unknown role "boss": use viewer, developer, admin$/],
    ['a bad e-mail', ['create', '--email', 'not-an-email', '--role', 'viewer', '--password-stdin'], 'long enough', 2, /^not an e-mail address: "not-an-email"$/],
    ['a missing e-mail', ['deactivate'], '', 2, /^--email is required/],
    ['a short password', ['create', '--email', 'y@example.com', '--role', 'viewer', '--password-stdin'], 'short', 2, /^the password must have at least 8 characters$/],
    ['no --password-stdin', ['create', '--email', 'y@example.com', '--role', 'viewer'], '', 2, /^--password-stdin is required/],
    ['an unknown command', ['promote', '--email', 'y@example.com'], '', 2, /^usage:/],
    ['an unknown flag', ['create', '--mail', 'y@example.com'], '', 2, /Unknown option '--mail'/],
    ['an unknown user', ['deactivate', '--email', 'nobody@example.com'], '', 1, /^no user with e-mail nobody@example.com$/],
  ];
  for (const [what, args, input, code, message] of refusals) {
    it(`refuses ${what} with exit ${code} and a clear line`, () => {
      const result = user(args, input);
      expect(result.status).to.equal(code);
      expect(result.stderr.trim()).to.match(message);
    });
  }
});
