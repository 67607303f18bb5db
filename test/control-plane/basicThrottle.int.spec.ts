import { expect } from 'chai';
import { latencyProbe, percentile } from '#test/support/latencyProbe.ts';
import { basic, PASSWORD } from '#test/support/platform.ts';
import { requestFrom, statuses, type PlainResponse } from '#test/support/requestFrom.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

/** What other clients may wait, at worst, while someone floods the API with guesses. */
const P99_BOUND_MS = 500;

const me = (platform: WebPlatform, address: string, authorization?: string): Promise<PlainResponse> =>
  requestFrom(address, `${platform.controlPlane}/api/v1/me`, { headers: authorization ? { authorization } : {} });

describe('control-plane: guessing passwords over HTTP Basic (issue 10, item 6)', function () {
  this.timeout(120_000);

  describe('with the default thresholds (and a 30 s first lock, so the test outlasts none)', () => {
    let platform: WebPlatform;
    before(async () => {
      platform = await startWebPlatform({ FORJA_LOGIN_LOCK_S: '30' });
    });
    after(() => platform?.stop());

    it('answers 429 with Retry-After after 5 wrong passwords for an account, even to the right (remembered) one, and keeps /health fast', async () => {
      expect((await me(platform, '127.0.0.1', basic(USERS.developer))).status, 'remembered from now on').to.equal(200);
      const probe = latencyProbe([`${platform.controlPlane}/health`, `${platform.web}/static/app.css`]);
      const burst = await Promise.all(Array.from({ length: 60 }, (_, n) => me(platform, '127.0.0.1', basic(USERS.developer, `wrong guess ${n}`))));
      const { timings, failures } = await probe.stop();

      expect(statuses(burst)).to.deep.equal({ 401: 6, 429: 54 });
      for (const refused of burst.filter((res) => res.status === 429)) {
        expect(Number(refused.headers['retry-after'])).to.be.within(1, 30);
        expect(JSON.parse(refused.body)).to.have.property('detail').that.matches(/^too many failed sign-ins for this account or from this address: try again in \d+ s$/);
      }
      expect((await me(platform, '127.0.0.1', basic(USERS.developer))).status, 'the right password while locked').to.equal(429);
      expect((await me(platform, '127.0.0.2', basic(USERS.developer))).status, 'the locked account from elsewhere').to.equal(429);

      expect(failures).to.deep.equal([]);
      expect(percentile(timings, 99), `p99 of ${timings.length} requests of /health and a static file`).to.be.below(P99_BOUND_MS);
    });

    it('lets an API client send its right password in many requests at once: one check, every answer 200', async () => {
      // A cold cache: 24 requests at once used to be 24 attempts, and the throttle locked out all past the fifth.
      await platform.createUser('parallel@example.com', 'viewer');
      const burst = await Promise.all(Array.from({ length: 24 }, () => me(platform, '127.0.0.7', basic('parallel@example.com'))));
      expect(statuses(burst)).to.deep.equal({ 200: 24 });
    });

    it('lets another account in, from another address and from the same one', async () => {
      expect((await me(platform, '127.0.0.2', basic(USERS.viewer))).status).to.equal(200);
      expect((await me(platform, '127.0.0.1', basic(USERS.admin))).status).to.equal(200);
    });

    it('locks an address after 20 wrong passwords over any accounts, and leaves other addresses alone', async () => {
      const spray: PlainResponse[] = [];
      for (let n = 0; n < 25; n++) spray.push(await me(platform, '127.0.0.3', basic(`nobody${n}@example.com`, 'a guess')));
      expect(statuses(spray)).to.deep.equal({ 401: 21, 429: 4 });
      expect((await me(platform, '127.0.0.3', basic(USERS.viewer))).status).to.equal(429);
      expect((await me(platform, '127.0.0.4', basic(USERS.viewer))).status).to.equal(200);
    });

    it('challenges a missing or unreadable Authorization header with 401, counting nothing', async () => {
      for (const authorization of [undefined, 'Bearer abc', 'Basic !!!', `Basic ${Buffer.from('no colon').toString('base64')}`, 'Basic']) {
        for (let n = 0; n < 3; n++) {
          const res = await me(platform, '127.0.0.5', authorization);
          expect(res.status, String(authorization)).to.equal(401);
          expect(res.headers['www-authenticate']).to.equal('Basic realm="forja"');
          expect(JSON.parse(res.body)).to.deep.equal({ detail: 'missing or wrong credentials: use HTTP Basic with your e-mail and password' });
        }
      }
      expect((await me(platform, '127.0.0.5', basic(USERS.viewer))).status).to.equal(200);
    });

    it('counts a deactivated account’s right password as no guess', async () => {
      for (let n = 0; n < 10; n++) expect((await me(platform, '127.0.0.6', basic(USERS.deactivated))).status).to.equal(401);
      expect((await me(platform, '127.0.0.6', basic(USERS.viewer))).status).to.equal(200);
    });
  });

  describe('with thresholds too high to help: the bound on hashing at once', () => {
    let platform: WebPlatform;
    before(async () => {
      platform = await startWebPlatform({ FORJA_LOGIN_ACCOUNT_FAILURES: '1000', FORJA_LOGIN_ADDRESS_FAILURES: '100000' });
    });
    after(() => platform?.stop());

    it('keeps /health fast while 60 wrong passwords are checked, refusing the excess with 503 and Retry-After', async () => {
      const probe = latencyProbe([`${platform.controlPlane}/health`, `${platform.web}/static/app.css`]);
      const flood = await Promise.all(Array.from({ length: 60 }, (_, n) => me(platform, '127.0.0.1', basic(USERS.developer, `wrong guess ${n}`))));
      const { timings, failures } = await probe.stop();

      const counted = statuses(flood);
      expect(Object.keys(counted).map(Number)).to.satisfy((seen: number[]) => seen.every((status) => status === 401 || status === 503));
      expect(counted[401] ?? 0).to.be.greaterThan(0);
      for (const busy of flood.filter((res) => res.status === 503)) {
        expect(busy.headers['retry-after']).to.equal('1');
        expect(JSON.parse(busy.body)).to.deep.equal({ detail: 'too many sign-ins are being checked at once: try again in a moment' });
      }
      expect(failures).to.deep.equal([]);
      expect(percentile(timings, 99), `p99 of ${timings.length} requests of /health and a static file`).to.be.below(P99_BOUND_MS);
      expect((await me(platform, '127.0.0.1', basic(USERS.developer, PASSWORD))).status).to.equal(200);
    });
  });
});
