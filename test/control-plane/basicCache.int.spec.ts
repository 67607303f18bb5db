import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

const run = promisify(execFile);

/**
 * A successful Basic check is remembered for a minute (no scrypt on every API call). Issue 10,
 * item 17: the old password kept working for that minute after `set-password`. Changes are made
 * with `npm run user` in its own process, as an operator makes them.
 */
describe('control-plane: remembered Basic checks end with a change of the account (issue 10, item 17)', function () {
  this.timeout(90_000);
  let platform: TestPlatform;
  const EMAIL = 'cached@example.com';

  before(async () => {
    platform = await startTestPlatform();
    await platform.createUser(EMAIL, 'developer', 'the first password');
  });
  after(() => platform?.stop());

  const user = (args: string[], input = '') => {
    const child = run(process.execPath, ['--import', 'tsx', 'services/control-plane/identity/user.cli.ts', ...args, '--email', EMAIL], {
      env: { ...process.env, DATABASE_URL: platform.config.DATABASE_URL, FORJA_DATA_DIR: platform.config.FORJA_DATA_DIR, LOG_LEVEL: 'warn' },
      timeout: 30_000,
    });
    child.child.stdin?.end(input);
    return child;
  };
  const status = async (password: string, path = '/api/v1/me', method = 'GET') =>
    (await fetch(`${platform.urls.controlPlane}${path}`, { method, headers: { authorization: basic(EMAIL, password), 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{"name":"Cache Check"}' } : {}) })).status;
  /** Waits until the users read model shows everything appended so far (what loadBasicUser reads). */
  const usersCaughtUp = async () => waitForPosition(platform.infra.db.withSchema('read_model'), 'users', await platform.infra.store.headPosition());

  it('refuses the old password at once after set-password, and takes the new one', async () => {
    expect(await status('the first password')).to.equal(200);
    expect(await status('the first password'), 'remembered').to.equal(200);
    await user(['set-password', '--password-stdin'], 'the second password\n');
    expect(await status('the first password')).to.equal(401);
    expect(await status('the second password')).to.equal(200);
  });

  it('refuses a remembered password once the account is deactivated', async () => {
    expect(await status('the second password')).to.equal(200);
    await user(['deactivate']);
    await usersCaughtUp();
    expect(await status('the second password')).to.equal(401);
    await user(['reactivate']);
    await usersCaughtUp();
    expect(await status('the second password')).to.equal(200);
  });

  it('applies a role change to a remembered password', async () => {
    expect(await status('the second password', '/api/v1/projects', 'POST')).to.equal(201);
    await user(['set-role', '--role', 'viewer']);
    await usersCaughtUp();
    expect(await status('the second password', '/api/v1/projects', 'POST')).to.equal(403);
    expect(await status('the second password')).to.equal(200);
  });
});
