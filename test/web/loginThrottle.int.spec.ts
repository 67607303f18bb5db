import { expect } from 'chai';
import { latencyProbe, percentile } from '#test/support/latencyProbe.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { requestFrom, statuses, type PlainResponse } from '#test/support/requestFrom.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, textOf } from '#test/support/webSession.ts';

/** What other users may wait, at worst, while someone floods the sign-in form. */
const P99_BOUND_MS = 500;

/** Sends sign-in forms from `address` in one session of its own, as one client would. */
async function signInFrom(platform: WebPlatform, address: string) {
  const visitor = platform.visitor();
  const token = await visitor.csrfToken();
  const headers = { 'content-type': 'application/x-www-form-urlencoded', cookie: `${SESSION_COOKIE}=${visitor.cookie}` };
  return (email: string, password: string): Promise<PlainResponse> =>
    requestFrom(address, `${platform.web}/login`, { method: 'POST', headers, body: new URLSearchParams({ _csrf: token, email, password }).toString() });
}

describe('web: guessing passwords on the sign-in form (issue 10, item 6)', function () {
  this.timeout(120_000);

  describe('with the default thresholds (and a 30 s first lock, so the test outlasts none)', () => {
    let platform: WebPlatform;
    before(async () => {
      platform = await startWebPlatform({ FORJA_LOGIN_LOCK_S: '30' });
    });
    after(() => platform?.stop());

    it('answers 429 with Retry-After after 5 wrong passwords for an account, even to the right one, and keeps other pages fast', async () => {
      const guess = await signInFrom(platform, '127.0.0.1');
      const probe = latencyProbe([`${platform.web}/static/app.css`, `${platform.web}/health`]);
      const burst = await Promise.all(Array.from({ length: 60 }, (_, n) => guess(USERS.developer, `wrong guess ${n}`)));
      const { timings, failures } = await probe.stop();

      expect(statuses(burst)).to.deep.equal({ 401: 6, 429: 54 });
      for (const refused of burst.filter((res) => res.status === 429)) {
        expect(Number(refused.headers['retry-after'])).to.be.within(1, 30);
        expect(textOf(refused.body)).to.match(/Too many failed sign-ins for this account or from your network\. Try again in \d+ seconds\./);
      }
      const right = await guess(USERS.developer, PASSWORD);
      expect(right.status, 'the right password while locked').to.equal(429);
      expect(right.body, 'the form keeps the e-mail').to.include(`value="${USERS.developer}"`);
      expect((await (await signInFrom(platform, '127.0.0.2'))(USERS.developer, PASSWORD)).status, 'the locked account from elsewhere').to.equal(429);

      expect(failures).to.deep.equal([]);
      expect(timings.length).to.be.greaterThan(5);
      expect(percentile(timings, 99), `p99 of ${timings.length} requests of a static file and /health`).to.be.below(P99_BOUND_MS);
    });

    it('lets another account in, from another address and from the same one', async () => {
      expect((await (await signInFrom(platform, '127.0.0.2'))(USERS.viewer, PASSWORD)).status).to.equal(303);
      expect((await (await signInFrom(platform, '127.0.0.1'))(USERS.admin, PASSWORD)).status).to.equal(303);
    });

    it('locks an address after 20 wrong passwords over any accounts, and leaves other addresses alone', async () => {
      const guess = await signInFrom(platform, '127.0.0.3');
      // One after another: checked at once, some would wait for a hashing slot too long and not count (503).
      const spray: PlainResponse[] = [];
      for (let n = 0; n < 25; n++) spray.push(await guess(`nobody${n}@example.com`, 'a guess'));
      expect(statuses(spray)).to.deep.equal({ 401: 21, 429: 4 });
      expect((await guess(USERS.viewer, PASSWORD)).status).to.equal(429);
      expect((await (await signInFrom(platform, '127.0.0.4'))(USERS.viewer, PASSWORD)).status).to.equal(303);
    });

    it('does not count a form without a password', async () => {
      const guess = await signInFrom(platform, '127.0.0.5');
      for (let n = 0; n < 10; n++) expect((await guess(USERS.admin, '')).status).to.equal(422);
      expect((await guess(USERS.admin, PASSWORD)).status).to.equal(303);
    });
  });

  describe('with thresholds too high to help: the bound on hashing at once', () => {
    let platform: WebPlatform;
    before(async () => {
      platform = await startWebPlatform({ FORJA_LOGIN_ACCOUNT_FAILURES: '1000', FORJA_LOGIN_ADDRESS_FAILURES: '100000' });
    });
    after(() => platform?.stop());

    it('keeps a static file and /health fast while 60 wrong passwords are checked, refusing the excess with 503 and Retry-After', async () => {
      const guess = await signInFrom(platform, '127.0.0.1');
      const probe = latencyProbe([`${platform.web}/static/app.css`, `${platform.web}/health`]);
      const flood = await Promise.all(Array.from({ length: 60 }, (_, n) => guess(USERS.developer, `wrong guess ${n}`)));
      const { timings, failures } = await probe.stop();

      const counted = statuses(flood);
      expect(Object.keys(counted).map(Number)).to.satisfy((seen: number[]) => seen.every((status) => status === 401 || status === 503));
      expect(counted[401] ?? 0).to.be.greaterThan(0);
      for (const busy of flood.filter((res) => res.status === 503)) {
        expect(busy.headers['retry-after']).to.equal('1');
        expect(textOf(busy.body)).to.include('Too many sign-ins are being checked at once. Try again in a moment.');
      }
      expect(failures).to.deep.equal([]);
      expect(percentile(timings, 99), `p99 of ${timings.length} requests of a static file and /health`).to.be.below(P99_BOUND_MS);
      expect((await guess(USERS.developer, PASSWORD)).status).to.equal(303);
    });
  });
});
