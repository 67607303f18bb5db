import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Bus } from '../bus/bus.ts';
import { natsAddress } from '../bus/natsUrl.ts';
import { openBus } from '../bus/openBus.ts';
import type { Config } from '../config/config.ts';
import { createKysely, createPool, type Pool } from '../db.ts';
import type { EventStore } from '../eventStore/eventStore.ts';
import { openEventStore } from '../eventStore/openEventStore.ts';
import { startPostgresCluster } from '../local/postgresCluster.ts';
import { startNatsServer } from '../local/natsServer.ts';
import type { Logger } from '../log.ts';

/** What every process stands on: the database, the event store and the bus. */
export interface Infrastructure {
  databaseUrl: string;
  pool: Pool;
  db: Kysely<any>;
  store: EventStore;
  bus: Bus;
  /** Where each piece came from, for the start-up banner. */
  describe: { database: string; eventStore: string; bus: string };
  close(): Promise<void>;
}

/**
 * Connects to DATABASE_URL / EVENTSTORE_URL / NATS_URL, or, where one is unset, to the private
 * local service (a PostgreSQL cluster under FORJA_DATA_DIR; the in-process bus, or a private
 * nats-server when FORJA_LOCAL_NATS=true). Local services this call started are stopped by
 * `close()`; ones another process started are left running.
 */
export async function openInfrastructure(config: Config, logger: Logger): Promise<Infrastructure> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch((error: unknown) => logger.warn({ err: error }, 'close failed'));
  };
  try {
    let databaseUrl = config.DATABASE_URL;
    let database = 'DATABASE_URL';
    if (!databaseUrl) {
      const cluster = await startPostgresCluster(join(config.FORJA_DATA_DIR, 'postgres'));
      if (cluster.startedHere) closers.push(() => cluster.stop());
      databaseUrl = cluster.url;
      database = `private PostgreSQL on 127.0.0.1:${cluster.port} (${join(config.FORJA_DATA_DIR, 'postgres')})`;
    }
    const pool = createPool(databaseUrl, { max: 10 });
    closers.push(() => pool.end());
    await pool.query('select 1').catch((error: Error) => {
      throw new Error(`cannot reach PostgreSQL at ${hostOf(databaseUrl)} (${database}): ${error.message}`);
    });
    // The event store has connections of its own: an append (every command, every job step) never
    // waits behind read-model queries and projection batches for a connection of the shared pool.
    const storePool = createPool(databaseUrl, { max: 6, applicationName: 'forja-event-store' });
    closers.push(() => storePool.end());
    const store = await openEventStore({
      eventStoreUrl: config.EVENTSTORE_URL,
      databaseUrl,
      pool: storePool,
      pollIntervalMs: config.FORJA_PROJECTION_POLL_MS,
    });
    closers.push(() => store.close());

    let natsUrl = config.NATS_URL;
    let busDescription = natsUrl ? `NATS JetStream at ${natsAddress(natsUrl)}` : 'in-process bus';
    if (!natsUrl && config.FORJA_LOCAL_NATS) {
      const server = await startNatsServer({ dataDir: config.FORJA_DATA_DIR, logger });
      closers.push(() => server.stop());
      natsUrl = server.url;
      busDescription = `private nats-server with JetStream at ${server.address} (token in ${join(config.FORJA_DATA_DIR, 'nats', 'token')})`;
    }
    const bus = await openBus(natsUrl);
    closers.push(() => bus.close());

    return {
      databaseUrl,
      pool,
      db: createKysely<any>(pool),
      store,
      bus,
      describe: { database, eventStore: config.EVENTSTORE_URL ? `EventStoreDB at ${config.EVENTSTORE_URL}` : 'PostgreSQL (schema event_store)', bus: busDescription },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** host:port of a database URL, without the credentials, for error messages. */
function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}

/** For command-line entry points: the infrastructure, or one line on stderr and exit code 1. */
export async function openInfrastructureOrExit(config: Config, logger: Logger, title: string): Promise<Infrastructure> {
  try {
    return await openInfrastructure(config, logger);
  } catch (error) {
    process.stderr.write(`${title}: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
