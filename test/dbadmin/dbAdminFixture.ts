import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { findAdminer } from '#services/dbadmin/adminerInstall.ts';
import { dbAdminStarter } from '#services/dbadmin/dbAdminProcess.ts';
import { erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { freePort } from '#test/support/freePort.ts';
import { testCluster } from '#test/support/postgres.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';

export interface DbAdminFixture {
  platform: WebPlatform;
  /** The instance whose database Adminer opens, and that database (owned by its role). */
  slug: string;
  database: string;
  /** A second instance with a database: Adminer on the first must not open it. */
  otherDatabase: string;
  /** Forja's own database (event store and read models), on the same test cluster as the instances'. */
  forjaDatabase: string;
  /** The admin URL of the instances' database server. */
  adminUrl: string;
}

/** Why the database admin's tests cannot run here, if they cannot: `.ci/run` installs what they need. */
export function adminerMissing(): string | undefined {
  const install = findAdminer();
  return 'missing' in install ? `Adminer ${install.missing}` : undefined;
}

/** An instance as web creates it, given its database the way the executor's database step does. */
async function provisionedInstance(platform: WebPlatform, adminUrl: string, name: string, project: string): Promise<string> {
  const developer = await platform.signedIn('developer');
  const location = (await developer.post('/instances', { name, project, erp_version: '18.0' })).location ?? '';
  const slug = location.replace('/instances/', '');
  const readModel = platform.infra.db.withSchema('read_model');
  await waitUntil(async () => (await getInstance(readModel, slug)) !== undefined, `instance ${slug} in the read model`);
  const masterKey = resolvePlatformSecrets(platform.config).masterKey;
  const databases = erpDatabases({ adminUrl, log: new PassThrough().resume(), credentials: (database) => instanceCredentials(masterKey, database) });
  const database = databaseName(slug);
  await databases.recreate(database);
  await databases.query(database, "create table res_partner (id serial primary key, name text not null); insert into res_partner (name) values ('Acme Norte SA'), ('Ferretería Sur')");
  // No executor runs here: the read model learns of the database as it would from the step's event.
  await sql`update read_model.instance_detail set provisioned = true where slug = ${slug}`.execute(platform.infra.db);
  return slug;
}

/**
 * Web with Adminer (FORJA_DBADMIN_PORT on a free port) pinned to the test cluster as the
 * instances' server, and two instances with databases and roles made by the executor's code.
 */
export async function startDbAdminFixture(): Promise<DbAdminFixture> {
  const adminUrl = (await testCluster()).urlFor('postgres');
  const platform = await startWebPlatform({}, [dbAdminStarter({ FORJA_ERP_DATABASE_URL: adminUrl })], { FORJA_DBADMIN_PORT: String(await freePort()) });
  const developer = await platform.signedIn('developer');
  const project = (await developer.post('/projects', { name: `Acme ${Date.now()}` })).location!.replace('/projects/', '');
  const slug = await provisionedInstance(platform, adminUrl, 'Norte', project);
  const other = await provisionedInstance(platform, adminUrl, 'Sur', project);
  return { platform, slug, database: databaseName(slug), otherDatabase: databaseName(other), forjaDatabase: new URL(platform.config.DATABASE_URL!).pathname.slice(1), adminUrl };
}
