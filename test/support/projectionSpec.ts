import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { sql } from 'kysely';
import { migrateReadModel } from '#projections/migrations/index.ts';
import { readModelOf, type ReadModel } from '#projections/readModel.ts';
import { eventsFor, type Projection } from '#projections/runner/projection.ts';
import { createKysely, createPool } from '#shared/db.ts';
import type { DomainEvent, EventMetadata, RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { createTestDatabase } from './postgres.ts';
import { onTeardown } from './teardown.ts';

/**
 * Given/when/then for projections, against a real read-model schema (one test database per run,
 * migrated with `migrateReadModel`; each scenario empties the projection's tables first):
 *
 *   const spec = projectionSpec(projectDetailProjection);
 *   const created = event({ type: 'ProjectCreated', data: { slug: 'acme', name: 'Acme' } }, { stream: 'project-acme' });
 *   await spec.given([created]).when([repositorySet]).then((db) => getProject(db, 'acme'), { slug: 'acme', … });
 *   await spec.given([created]).when([repositorySet]).replayTwice();
 *
 * `given` and `when` are applied as two batches, each in its own transaction, as the runner would.
 * `replayTwice` then redelivers every event on top and replays them from scratch one per batch: the
 * projection's tables must come out identical both times. Events are drafts: the spec numbers
 * global positions and stream versions in order and fills ids and metadata, one second apart.
 */
export function projectionSpec(projection: Projection) {
  const scenario = (history: EventDraft[], events: EventDraft[]) => {
    const recorded = recordedEvents([...history, ...events]);
    const batches = [recorded.slice(0, history.length), recorded.slice(history.length)];
    const run = async (): Promise<ReadModel> => {
      const db = await specReadModel();
      await emptyTables(db, projection);
      for (const batch of batches) await applyBatch(db, projection, batch);
      return db;
    };
    return {
      /** The query's answer after the events equals `expected` (chai deep equality). */
      async then<T>(query: (db: ReadModel) => Promise<T>, expected: T): Promise<void> {
        const db = await run();
        expect(await query(db)).to.deep.equal(expected);
      },
      /** The tables after the events equal those after a redelivery of them all, and after a replay from scratch. */
      async replayTwice(): Promise<void> {
        const db = await run();
        const once = await tableRows(db, projection);
        await applyBatch(db, projection, recorded);
        expect(await tableRows(db, projection), 'rows after every event was delivered again').to.deep.equal(once);
        await emptyTables(db, projection);
        for (const event of recorded) await applyBatch(db, projection, [event]);
        expect(await tableRows(db, projection), 'rows after a replay from scratch, one event per batch').to.deep.equal(once);
      },
    };
  };
  return {
    given: (history: EventDraft[]) => ({ when: (events: EventDraft[]) => scenario(history, events) }),
    when: (events: EventDraft[]) => scenario([], events),
  };
}

/** An event as a test writes it: type and data, and whatever else of a recorded event it cares about. */
export type EventDraft = DomainEvent & Partial<Omit<RecordedEvent, 'type' | 'data' | 'metadata'>> & { metadata?: Partial<EventMetadata> };

/** A draft of `domainEvent` in `stream` (default `spec-1`), optionally with its metadata (`actor`, `at`, …). */
export function event<E extends DomainEvent>(domainEvent: E, options: Omit<EventDraft, 'type' | 'data'> = {}): EventDraft {
  return { ...options, type: domainEvent.type, data: domainEvent.data };
}

const EPOCH = Date.UTC(2026, 10, 22, 12, 0, 0);

/**
 * The drafts as the store would record them after `after`: global positions in order, versions
 * counted per stream, fresh ids, and metadata at `EPOCH` plus one second per position. Whatever a
 * draft sets is kept.
 */
export function recordedEvents(drafts: readonly EventDraft[], after = 0): RecordedEvent[] {
  const versions = new Map<string, number>();
  return drafts.map((draft, index) => {
    const stream = draft.stream ?? 'spec-1';
    const version = draft.version ?? (versions.get(stream) ?? 0) + 1;
    versions.set(stream, version);
    const globalPosition = draft.globalPosition ?? after + index + 1;
    const at = draft.metadata?.at ?? new Date(EPOCH + globalPosition * 1000).toISOString();
    const id = draft.id ?? randomUUID();
    const metadata: EventMetadata = { correlationId: id, causationId: id, actor: 'user-spec', ...draft.metadata, at };
    return { id, stream, type: draft.type, data: draft.data, metadata, version, globalPosition, recordedAt: draft.recordedAt ?? new Date(at) };
  });
}

let readModel: Promise<ReadModel> | undefined;

/** The run's read-model database, created and migrated on first use. */
function specReadModel(): Promise<ReadModel> {
  readModel ??= (async () => {
    const pool = createPool(await createTestDatabase('projection_spec'), { max: 2 });
    onTeardown(() => pool.end());
    await migrateReadModel(createKysely(pool));
    return readModelOf(createKysely(pool));
  })();
  return readModel;
}

async function applyBatch(db: ReadModel, projection: Projection, batch: RecordedEvent[]): Promise<void> {
  const relevant = eventsFor(projection.eventTypes)(batch);
  if (relevant.length > 0) await db.transaction().execute((trx) => projection.apply(trx, relevant));
}

async function emptyTables(db: ReadModel, projection: Projection): Promise<void> {
  for (const table of projection.tables) await sql`truncate table ${sql.table(`read_model.${table}`)}`.execute(db);
}

/** Every row of the projection's tables, in an order that does not depend on how they were written. */
async function tableRows(db: ReadModel, projection: Projection): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {};
  for (const table of projection.tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(`read_model.${table}`)}`.execute(db);
    tables[table] = rows.map((row) => [JSON.stringify(row), row] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  }
  return tables;
}
