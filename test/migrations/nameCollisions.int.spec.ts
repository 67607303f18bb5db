import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import type { WorkMessage } from '#shared/bus/bus.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { createPool, type Pool } from '#shared/db.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { silentLogger } from '#shared/log.ts';
import { planStep } from '#shared/workflow/plan.ts';
import { migrationDatabasesOf } from '#services/control-plane/migrations/migrationSlug.ts';
import { erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import type { MigrationEnvironment } from '#services/executor/migration/migrationHost.ts';
import { migrationWork } from '#services/executor/migration/migrationWork.ts';
import { inputDumpFile } from '#services/executor/migration/steps/fetch.ts';
import { restore } from '#services/executor/migration/steps/restore.ts';
import { workingInstances } from '#services/executor/migration/workingInstances.ts';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import { instanceStream, type InstanceSettings } from '#services/instances/domain/instance.ts';
import { migrationDecider, type MigrationCommand } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream } from '#services/migrations/domain/migration.ts';
import { migrationSettings } from '#test/support/migrationSettings.ts';
import { createTestDatabase, testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { freshName, memoryLog, pgDump, sql } from '../executor/fixtures/databaseFixtures.ts';
import { MIGRATION_ERP_TABLES, migrationStepContext } from '../executor/fixtures/migrationStepsContext.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);
const metadata = (): EventMetadata => ({ correlationId: 'c', causationId: 'c', actor: 'system', at: new Date().toISOString() });

/**
 * Issue 24 finding 5 against a real server and event store: instance `mig-acme` and migration
 * `acme` named the same database, and stopping migration `acme` destroyed instance `acme-r1` of
 * another project, whose slug looked like its first run's working instance.
 */
describe('migration names never reach an instance: restore and stop against real Postgres', function () {
  this.timeout(60_000);
  let adminUrl: string;
  let pool: Pool;
  let store: EventStore;
  let dataDir: string;
  let dumpFile: string;
  /** `acme-<random>`: a fresh migration slug per test. */
  let acme: string;

  const databases = () => erpDatabases({ adminUrl, log: memoryLog().stream, credentials });
  const instanceSettings = (slug: string, project: string): InstanceSettings => ({
    slug, name: slug, project, stage: 'production', erpVersion: '17.0', edition: 'community', modules: [], gitRepo: null, branch: 'main', source: { kind: 'empty' },
  });
  const userInstance = (slug: string, project: string) => handleCommand(store, instanceDecider, instanceStream(slug), { type: 'RequestInstance', settings: instanceSettings(slug, project), jobId: randomUUID() }, { metadata: metadata() });
  const migration = (command: MigrationCommand) => handleCommand(store, migrationDecider, migrationStream(acme), command, { metadata: metadata() });
  const instanceEvents = async (slug: string) => (await store.readStream(instanceStream(slug))).events.map((event) => `${event.type}${(event.data as { action?: string }).action ? `:${(event.data as { action: string }).action}` : ''}`);
  /** The executor's `work.migration` handler, given the migration's last event (a stop or delete). */
  async function removeWork(): Promise<void> {
    const last = (await store.readStream(migrationStream(acme))).events.at(-1)!;
    const env = { store, databases: (log, job) => erpDatabases({ adminUrl, log, credentials, ...job }), blobs: createFsBlobStore(join(dataDir, 'blobs')), dataDir, logger: silentLogger, heartbeatMs: 1000 } as Partial<MigrationEnvironment> as MigrationEnvironment;
    const body = { eventId: last.id, stream: migrationStream(acme), type: last.type, data: last.data, metadata: last.metadata, globalPosition: 0 };
    let acked = false;
    const message = { json: () => body, ack: () => (acked = true), term: () => expect.fail('termed'), working: () => undefined } as Partial<WorkMessage> as WorkMessage;
    await migrationWork(env, {})(message, new AbortController().signal);
    expect(acked, 'the cleanup is acked').to.equal(true);
  }

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
    const url = await createTestDatabase('collide');
    pool = createPool(url);
    await migrateEventStore(pool);
    store = createPgEventStore({ pool, connectionString: url, pollIntervalMs: 100 });
    const source = freshName('collidesrc');
    await sql(adminUrl, 'postgres', `create database ${source}`);
    await sql(adminUrl, source, MIGRATION_ERP_TABLES);
    dumpFile = join(runDir('name-collisions'), 'customer.dump');
    pgDump(adminUrl, source, 'c', dumpFile);
  });
  after(async () => {
    await store?.close();
    await pool?.end();
  });
  beforeEach(() => {
    dataDir = runDir('name-collisions-data');
    acme = `acme-${randomBytes(3).toString('hex')}`;
  });

  it('restores migration acme and takes its checkpoint without touching instance mig-acme’s database, and its stop drops only its own', async () => {
    const instanceDb = databaseName(`mig-${acme}`);
    await databases().recreate(instanceDb);
    const asInstance = (text: string) => sql(urlAs(adminUrl, instanceDb, credentials(instanceDb)), instanceDb, text);
    await asInstance(`create table customer_orders (id int); insert into customer_orders values (1), (2)`);
    const names = migrationDatabasesOf(acme);
    await migration({ type: 'CreateMigration', settings: migrationSettings({ slug: acme, ...names }) });
    await migration({ type: 'RequestRun', jobId: 'j1', plan: [planStep('restore')] });
    const { context } = migrationStepContext({ adminUrl, credentials, ...names, slug: acme, dataDir, blobs: createFsBlobStore(join(dataDir, 'blobs')), step: { id: 'restore', type: 'restore', params: {} } });
    mkdirSync(context.paths.input, { recursive: true });
    copyFileSync(dumpFile, inputDumpFile(context.paths.input));

    expect((await restore(context)).outcome).to.equal('done');
    expect(await databases().exists(names.checkpointDatabase), 'the checkpoint').to.equal(true);
    expect(await asInstance('select count(*)::int as n from customer_orders')).to.deep.equal([{ n: 2 }]);

    await migration({ type: 'StopMigration' });
    await removeWork();
    expect(await databases().exists(names.workingDatabase)).to.equal(false);
    expect(await databases().exists(names.checkpointDatabase)).to.equal(false);
    expect(await asInstance('select count(*)::int as n from customer_orders')).to.deep.equal([{ n: 2 }]);
  });

  it('destroys on stop the working instances its runs asked for, and neither instance acme-r1 of project acme nor one it found holding its slug', async () => {
    await userInstance(`${acme}-r1`, 'acme');
    await migration({ type: 'CreateMigration', settings: migrationSettings({ slug: acme, ...migrationDatabasesOf(acme) }) });
    const plan = [planStep('instance')];
    const workingSettings = (slug: string, run: number): InstanceSettings => ({ ...instanceSettings(slug, 'migrations'), source: { kind: 'migration', migration: acme, run, database: 'forjamig_x', filestoreDir: null } });
    /** Run `number` requested and stopped: `during` is what its instance step did meanwhile. */
    const runThenStop = async (number: number, during: (port: ReturnType<typeof workingInstances>) => Promise<void>) => {
      await migration({ type: 'RequestRun', jobId: `j${number}`, plan });
      await during(workingInstances(store, { slug: acme, number, jobId: `j${number}` }, metadata));
      await migration({ type: 'StopMigration' });
    };
    // Run 1 made no working instance; run 2 made one before names were recorded (the old `<migration>-r<run>`).
    await runThenStop(1, async () => undefined);
    await runThenStop(2, async () => void (await handleCommand(store, instanceDecider, instanceStream(`${acme}-r2`), { type: 'RequestInstance', settings: workingSettings(`${acme}-r2`, 2), jobId: randomUUID() }, { metadata: metadata() })));
    let working = '';
    await runThenStop(3, async (port) => {
      working = await port.reserve();
      expect(working).to.equal(`migrun-${acme}-3`);
      expect(await port.reserve(), 'a retry gets the same').to.equal(working);
      expect(await port.request(workingSettings(working, 3))).to.equal('requested');
      expect(await port.request(workingSettings(working, 3)), 'a retry finds its own instance').to.equal('requested');
    });
    // Run 4's slug is held by an instance this migration did not make (one from before the slug was reserved).
    let squatted = '';
    await runThenStop(4, async (port) => {
      squatted = await port.reserve();
      await userInstance(squatted, 'other');
      expect(await port.request(workingSettings(squatted, 4))).to.equal('taken');
    });
    expect(await instanceEvents(squatted), 'left as it was').to.deep.equal(['InstanceRequested']);

    await removeWork();
    expect(await instanceEvents(`${acme}-r2`)).to.include('InstanceActionRequested:destroy');
    expect(await instanceEvents(working)).to.include('InstanceActionRequested:destroy');
    expect(await instanceEvents(`${acme}-r1`), 'the user’s acme-r1').to.deep.equal(['InstanceRequested']);
    expect(await instanceEvents(squatted)).to.deep.equal(['InstanceRequested']);
  });
});
