import { expect } from 'chai';
import { dbAdminStarter } from '#services/dbadmin/dbAdminProcess.ts';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { startMonitoringProcess } from '#services/monitoring/monitoringProcess.ts';
import { authorizationTable, type RouteRule } from '#shared/auth/authorizationTable.ts';
import { ROLES } from '#shared/auth/roles.ts';
import { Readable } from 'node:stream';
import { caughtMailKeys } from '#shared/blobs/blobKeys.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { freePort } from '#test/support/freePort.ts';
import { testCluster } from '#test/support/postgres.ts';
import { controlPlaneApp, webApp } from '#test/support/processApps.ts';
import { registeredRoutes } from '#test/support/routeStack.ts';
import { basic } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { ruleKey, WALK_MAIL_ID, type WalkFixture } from './routeRequests.ts';
import { checkControlPlaneRoute } from './walkControlPlane.ts';
import { checkWebRoute } from './walkWeb.ts';

const rulesOf = (process: RouteRule['process']) => authorizationTable.filter((rule) => rule.process === process);
const tableRoutes = (process: RouteRule['process']) => rulesOf(process).map((rule) => `${rule.method} ${rule.path}`).sort();

describe('the authorization table', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  const fixture: WalkFixture = { slug: 'walk-target', instance: 'walk-target-walk-instance', migration: 'walk-migration' };

  before(async () => {
    // The walk sends a wrong password and a deactivated account's to every route: what it checks is
    // authorization, so the per-address lock (tested on its own) must not answer 429 before the end.
    // The mail catcher runs so its proxy's routes reach it.
    const catcherPorts = { FORJA_MAILCATCHER_SMTP_PORT: String(await freePort()) };
    // Prometheus runs too (installed by .ci/run), so the /monitoring routes reach it.
    const monitoringPort = { FORJA_MONITORING_PORT: String(await freePort()) };
    // Adminer too (installed by .ci/run), pinned to the test cluster, so the /dbadmin routes reach it.
    const dbAdmin = dbAdminStarter({ FORJA_ERP_DATABASE_URL: (await testCluster()).urlFor('postgres') });
    const dbAdminPort = { FORJA_DBADMIN_PORT: String(await freePort()) };
    platform = await startWebPlatform({ FORJA_LOGIN_ADDRESS_FAILURES: '100000' }, [startMailCatcherProcess, startMonitoringProcess, dbAdmin], { ...catcherPorts, ...monitoringPort, ...dbAdminPort });
    const developer = await platform.signedIn('developer');
    expect((await developer.post('/projects', { name: 'Walk Target' })).location).to.equal(`/projects/${fixture.slug}`);
    expect((await developer.post('/instances', { name: 'Walk Instance', project: fixture.slug, erp_version: '18.0' })).location).to.equal(`/instances/${fixture.instance}`);
    // A caught message with an attachment, so the instance mail routes reach a real message.
    const mail = caughtMailKeys(fixture.instance, WALK_MAIL_ID);
    const raw = 'Subject: walk\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b\r\nContent-Type: text/plain; name="a.txt"\r\nContent-Disposition: attachment; filename="a.txt"\r\n\r\nattached\r\n--b--\r\n';
    await createFsBlobStore(platform.config.FORJA_DATA_DIR).put(mail.raw, Readable.from([Buffer.from(raw)]));
    const api = (path: string, body: unknown) =>
      fetch(`${platform.controlPlane}${path}`, { method: 'POST', headers: { authorization: basic(USERS.developer), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await api('/api/v1/migrations', { name: 'Walk Migration', origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/walk.dump' })).status).to.equal(201);
    expect((await api(`/api/v1/migrations/${fixture.migration}/run`, {})).status).to.equal(201);
  });
  after(() => platform?.stop());

  it('has one rule per process, method and path', () => {
    const keys = authorizationTable.map(ruleKey);
    expect(keys).to.have.length(new Set(keys).size);
  });

  describe('holds on the running web, for anonymous, viewer, developer and admin', () => {
    for (const rule of rulesOf('web')) {
      it(`${rule.method} ${rule.path} (${rule.access})`, async () => {
        for (const who of ['anonymous', ...ROLES] as const) await checkWebRoute(platform, rule, who, fixture);
      });
    }
  });

  describe('holds on the running control-plane, for every kind of credentials and acting user', () => {
    for (const rule of rulesOf('control-plane')) {
      it(`${rule.method} ${rule.path} (${rule.access}${rule.actor ? ` for ${rule.actor}` : ''})`, () => checkControlPlaneRoute(platform, rule, fixture));
    }
  });

  describe('is complete: every registered route is in it, and every rule is registered', () => {
    it('for the control-plane', async () => {
      const { routes, mounts } = registeredRoutes(await controlPlaneApp(platform));
      expect(routes.sort()).to.deep.equal(tableRoutes('control-plane'));
      expect(mounts).to.deep.equal([]);
    });

    it('for web, with the identity-provider login on', () => {
      const { routes, mounts } = registeredRoutes(webApp(platform));
      expect(routes.sort()).to.deep.equal(tableRoutes('web'));
      expect([...new Set(mounts)], 'only static files are served outside the table').to.deep.equal(['/static']);
    });
  });
});
