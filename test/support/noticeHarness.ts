import { migrateReadModel } from '#projections/migrations/index.ts';
import { queuedNotices } from '#projections/notices/noticeOutbox.ts';
import type { NoticeWiring } from '#projections/notices/noticeWiring.ts';
import { startProjector, type Projector } from '#projections/projector.ts';
import type { ReadModel, ReadModelDatabase } from '#projections/readModel.ts';
import { migrationStream } from '#services/migrations/domain/migration.ts';
import { migrationNoticeStream, type MigrationNoticeEvent } from '#services/notifications/noticeEvents.ts';
import { createMemoryBus } from '#shared/bus/memoryBus.ts';
import { createKysely, createPool, type Pool } from '#shared/db.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { silentLogger, type Logger } from '#shared/log.ts';
import { createTestDatabase } from './postgres.ts';
import { runDir } from './runDir.ts';
import { startSilentServer, startTestSmtpServer, type SmtpBehaviour } from './smtpServer.ts';
import { waitUntil } from './wait.ts';

export const PUBLIC_URL = 'https://forja.example.com';

/**
 * The real projector (notice reactor and sender included) on a real event store, for one mocha
 * suite: each test gets a database of its own, so no notice one test queued is sent in the next,
 * and the projector and servers it started are stopped after it.
 */
export function noticeHarness() {
  const closers: Array<() => Promise<void>> = [];
  let pool: Pool;
  let url: string;
  const harness = {
    store: undefined as unknown as EventStore,
    readModel: undefined as unknown as ReadModel,
    projector: undefined as Projector | undefined,
    async start(notices: Partial<NoticeWiring>, logger: Logger = silentLogger): Promise<Projector> {
      harness.projector = await startProjector({
        db: createKysely(pool),
        store: harness.store,
        bus: createMemoryBus(),
        connectionString: url,
        logger,
        batchSize: 100,
        retryMs: 50,
        notices: {
          smtpUrl: undefined,
          smtpTimeoutMs: 1000,
          mailFolder: runDir('notices-mail'),
          maxAgeMs: 3_600_000,
          from: 'Forja <forja@example.com>',
          publicUrl: PUBLIC_URL,
          attempts: 3,
          retryMs: 100,
          maxRetryMs: 5000,
          attemptTimeoutMs: 5000,
          pollMs: 200,
          ...notices,
        },
      });
      return harness.projector;
    },
    async stopProjector(): Promise<void> {
      await harness.projector?.stop();
      harness.projector = undefined;
    },
    async smtp(behaviour?: SmtpBehaviour) {
      const server = await startTestSmtpServer(behaviour);
      closers.push(() => server.close());
      return server;
    },
    async silent() {
      const server = await startSilentServer();
      closers.push(() => server.close());
      return server;
    },
    /** The outcomes recorded on `migrationNotice-<slug>`. */
    outcomes: async (slug: string) => (await harness.store.readStream<MigrationNoticeEvent>(migrationNoticeStream(slug))).events,
    /** The sender takes a notice off its queue right after recording its outcome. */
    queueEmptied: () => waitUntil(async () => (await queuedNotices(harness.readModel)).length === 0, 'the notice queue to empty'),
    runEvents: async (slug: string, type: string) => (await harness.store.readStream(migrationStream(slug))).events.filter((event) => event.type === type),
  };
  beforeEach(async () => {
    url = await createTestDatabase('notices');
    pool = createPool(url);
    await migrateEventStore(pool);
    await migrateReadModel(createKysely(pool));
    harness.store = createPgEventStore({ pool, connectionString: url, pollIntervalMs: 100 });
    harness.readModel = createKysely<ReadModelDatabase>(pool).withSchema('read_model');
  });
  afterEach(async () => {
    await harness.stopProjector();
    for (const close of closers.splice(0)) await close();
    await harness.store.close();
    await pool.end();
  });
  return harness;
}
