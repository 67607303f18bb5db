import { expect } from 'chai';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { htmlProblems } from '#test/support/htmlValidation.ts';
import { waitUntil } from '#test/support/wait.ts';
import { textOf } from '#test/support/webSession.ts';
import { adminerClient, adminerToken, cellsOf } from './adminerClient.ts';
import { adminerMissing, startDbAdminFixture, type DbAdminFixture } from './dbAdminFixture.ts';

describe('the database admin (Adminer, started by Forja) behind web at /dbadmin/<instance>/', function () {
  this.timeout(120_000);
  let fixture: DbAdminFixture;
  let home: string;

  before(async function () {
    const missing = adminerMissing();
    if (missing) {
      console.warn(`      skipped: ${missing} (.ci/run installs it)`);
      return this.skip();
    }
    fixture = await startDbAdminFixture();
    home = `/dbadmin/${fixture.slug}/`;
  });
  after(() => fixture?.platform.stop());

  const developer = async () => adminerClient(fixture.platform.web, await fixture.platform.signedIn('developer'));
  const instanceQuery = () => `${home}?pgsql=&username=${fixture.database}&db=${fixture.database}&ns=public`;
  const runSql = async (client: Awaited<ReturnType<typeof developer>>, query: string, headers: Record<string, string> = {}) => {
    const form = await client.get(`${instanceQuery()}&sql=`);
    return client.post(`${instanceQuery()}&sql=`, { query, limit: '', token: adminerToken(form.html) }, headers);
  };

  it("lists the instance database's tables and rows for a developer, signed in as the instance's role without a password", async () => {
    const client = await developer();
    const overview = await client.get(home);
    expect(overview.status).to.equal(200);
    expect(overview.headers.get('x-forja-tool')).to.equal('dbadmin');
    expect(overview.html).to.include('res_partner');
    // Adminer's links stay under the instance's path: they are relative to /dbadmin/<slug>/.
    expect(overview.html).to.include(`href='?pgsql=&amp;username=${fixture.database}&amp;db=${fixture.database}&amp;ns=public&amp;select=res_partner'`);
    // Without its final slash the instance's folder would make Adminer's relative links point one level up.
    const bare = await client.get(`/dbadmin/${fixture.slug}?select=res_partner`);
    expect([bare.status, bare.headers.get('location')]).to.deep.equal([301, `${fixture.slug}/?select=res_partner`]);
    const rows = await client.get(`${instanceQuery()}&select=res_partner`);
    expect(rows.status).to.equal(200);
    expect(cellsOf(rows.html)).to.include('Acme Norte SA').and.include('Ferretería Sur');
  });

  it("runs a query as the instance's own role, not a superuser", async () => {
    const client = await developer();
    const result = await runSql(client, "select current_user as who, current_database() as db, (select rolsuper from pg_roles where rolname = current_user) as super, count(*) as partners from res_partner");
    expect(result.status).to.equal(200);
    expect(cellsOf(result.html).slice(0, 4)).to.deep.equal([fixture.database, fixture.database, 'f', '2']);
    // Writes work too: the role owns its database.
    await runSql(client, "insert into res_partner (name) values ('Nuevo Cliente')");
    expect(cellsOf((await runSql(client, 'select count(*) from res_partner')).html)[0]).to.equal('3');
  });

  it("refuses Forja's own database, another instance's, another server, another driver and a login form", async () => {
    const client = await developer();
    const refused = async (url: string, reason: RegExp, form?: Record<string, string>) => {
      const res = form ? await client.post(url, form) : await client.get(url);
      expect(res.status, url).to.equal(403);
      expect(res.headers.get('x-forja-tool'), url).to.equal('dbadmin');
      expect(textOf(res.html), url).to.match(reason);
    };
    await refused(`${home}?pgsql=&username=${fixture.database}&db=${fixture.forjaDatabase}`, /Only this instance's database/);
    await refused(`${home}?pgsql=&username=${fixture.database}&db=${fixture.otherDatabase}`, /Only this instance's database/);
    await refused(`${home}?pgsql=&username=${fixture.database}&db=postgres`, /Only this instance's database/);
    await refused(`${home}?pgsql=${encodeURIComponent(new URL(fixture.adminUrl).host)}&username=postgres`, /Only the instances' database server/);
    await refused(`${home}?pgsql=db.example.com:5432&username=${fixture.database}`, /Only the instances' database server/);
    await refused(`${home}?server=127.0.0.1&username=root`, /Only PostgreSQL/);
    await refused(`${home}?sqlite=&username=&db=/etc/passwd`, /Only PostgreSQL/);
    await refused(`${home}?pgsql=&username=postgres&db=${fixture.database}`, /Only the instance's own database role/);
    await refused(home, /nothing to sign in to/, { 'auth[driver]': 'pgsql', 'auth[server]': '', 'auth[username]': 'postgres', 'auth[password]': 'x', 'auth[db]': 'postgres' });
  });

  it("ignores X-Forja-* headers a browser sends (with - or _): only web's reach Adminer", async () => {
    const admin = new URL(fixture.adminUrl);
    const forged = { user: 'postgres', password: decodeURIComponent(admin.password), database: 'postgres' };
    const headers = Object.fromEntries(
      Object.entries(forged).flatMap(([field, value]) => [
        [`X-Forja-Dbadmin-${field}`, value],
        [`X_Forja_Dbadmin_${field}`, value],
      ]),
    );
    const client = await developer();
    const result = await runSql(client, 'select current_user, current_database()', headers);
    expect(cellsOf(result.html).slice(0, 2)).to.deep.equal([fixture.database, fixture.database]);
    // Without an instance in the path web sends none, and the forged ones are gone too.
    const bare = await client.get('/dbadmin/', headers);
    expect(bare.status).to.equal(200);
    expect(textOf(bare.html)).to.include("Open the database admin from an instance's page in Forja");
  });

  it('forwards every method to Adminer', async () => {
    const client = await developer();
    await client.get(home);
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']) {
      const res = await client.request(method, instanceQuery());
      expect(res.headers.get('x-forja-tool'), method).to.equal('dbadmin');
      expect(res.status, method).to.be.below(500);
    }
  });

  it('answers 403 to a viewer on every path and method, sends an anonymous visitor to sign in, 404 for an unknown instance and 409 for one without a database yet', async () => {
    const viewer = await fixture.platform.signedIn('viewer');
    for (const path of [home, instanceQuery(), '/dbadmin/', `/dbadmin/${fixture.slug}/?file=default.css&version=4.8.1`]) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
        const res = await adminerClient(fixture.platform.web, viewer).request(method, path);
        expect(res.status, `${method} ${path}`).to.equal(403);
        expect(res.headers.get('x-forja-tool'), `${method} ${path}`).to.equal(null);
        expect(textOf(res.html)).to.include('This needs the developer role; you are signed in as viewer.');
      }
    }
    const anonymous = await fetch(`${fixture.platform.web}${home}`, { redirect: 'manual' });
    expect(anonymous.status).to.equal(303);
    expect(anonymous.headers.get('location')).to.equal(`/login?next=${encodeURIComponent(home)}`);
    const unknown = await (await developer()).get('/dbadmin/no-such-instance/');
    expect(unknown.status).to.equal(404);
    expect(textOf(unknown.html)).to.include('There is no instance no-such-instance');
    const session = await fixture.platform.signedIn('developer');
    const project = (await session.post('/projects', { name: `Pending ${Date.now()}` })).location!.replace('/projects/', '');
    const pending = (await session.post('/instances', { name: 'Pending', project, erp_version: '18.0' })).location!.replace('/instances/', '');
    await waitUntil(async () => (await getInstance(fixture.platform.infra.db.withSchema('read_model'), pending)) !== undefined, `${pending} in the read model`);
    const notYet = await adminerClient(fixture.platform.web, session).get(`/dbadmin/${pending}/`);
    expect(notYet.status).to.equal(409);
    expect(textOf(notYet.html)).to.include(`${pending} has no database yet`);
  });

  it("links developers and admins to it from the instance's page, not viewers", async () => {
    const link = `href="/dbadmin/${fixture.slug}/"`;
    for (const role of ['developer', 'admin'] as const) {
      const page = (await (await fixture.platform.signedIn(role)).get(`/instances/${fixture.slug}`)).html;
      expect(page, role).to.include(link);
      expect(await htmlProblems(page, `instance page with the database admin link (${role})`), role).to.deep.equal([]);
    }
    expect((await (await fixture.platform.signedIn('viewer')).get(`/instances/${fixture.slug}`)).html).to.not.include(link);
  });
});
