import type { Pool } from '../db.ts';
import type { EventStore } from './eventStore.ts';
import { createEsdbEventStore } from './eventStoreDb/esdbEventStore.ts';
import { createPgEventStore, migrateEventStore } from './postgres/pgEventStore.ts';

export interface OpenEventStoreOptions {
  eventStoreUrl: string | undefined;
  databaseUrl: string;
  pool: Pool;
  pollIntervalMs: number;
}

/** EventStoreDB when EVENTSTORE_URL is set, otherwise PostgreSQL (migrated on the way). */
export async function openEventStore(options: OpenEventStoreOptions): Promise<EventStore> {
  if (options.eventStoreUrl) return createEsdbEventStore(options.eventStoreUrl);
  await migrateEventStore(options.pool);
  return createPgEventStore({ pool: options.pool, connectionString: options.databaseUrl, pollIntervalMs: options.pollIntervalMs });
}
