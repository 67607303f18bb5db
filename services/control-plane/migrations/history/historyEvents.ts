import { contractHint, withoutUserinfo } from '#projections/erpMigrations/migrationDetail.ts';
import type { UserRow } from '#projections/users/users.ts';
import { chainEvents, type AuditLine } from '#services/migrations/audit/auditChain.ts';
import { migrationStateAsOf } from '#services/migrations/audit/migrationStateView.ts';
import { migrationStream, type MigrationEvent } from '#services/migrations/domain/migration.ts';
import { roleAtLeast } from '#shared/auth/roles.ts';
import type { EventStore, RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { HttpError } from '#shared/http/errors.ts';

/** A migration's stream as auditors get it: every event, redacted, hash-chained. */
export interface MigrationHistory {
  slug: string;
  /** Its name, which never changes after creation. */
  name: string;
  /** Deleted: the read models forgot it, its events remain (admins only). */
  deleted: boolean;
  lines: AuditLine[];
}

/**
 * What the history shows of an event's data: what the API shows elsewhere. The contract keeps its
 * last 4 characters and a pull URL loses its user and password; the hashes cover the events as
 * exported, so an export never carries a secret and still verifies.
 */
export function redactedData(type: string, data: unknown): unknown {
  const event = { type, data } as MigrationEvent;
  if (event.type === 'MigrationCreated') {
    const { input, contract } = event.data;
    return { ...event.data, contract: contractHint(contract), input: input.mode === 'pull' ? { ...input, pullUrl: withoutUserinfo(input.pullUrl) } : input };
  }
  if (event.type === 'MigrationEdited' && event.data.changes.contract !== undefined) {
    return { ...event.data, changes: { ...event.data.changes, contract: contractHint(event.data.changes.contract) } };
  }
  return data;
}

const auditEventOf = (event: RecordedEvent) => ({
  stream: event.stream,
  version: event.version,
  global_position: event.globalPosition,
  id: event.id,
  type: event.type,
  data: redactedData(event.type, event.data),
  metadata: event.metadata,
  recorded_at: event.recordedAt.toISOString(),
});

/**
 * The migration's whole stream, read from the event store (never from a read model). A deleted
 * migration's history is an admin's: anyone else gets the 404 its other pages give.
 */
export async function loadMigrationHistory(store: EventStore, slug: string, user: UserRow): Promise<MigrationHistory> {
  const { events } = await store.readStream(migrationStream(slug));
  const state = migrationStateAsOf(events, events.length);
  const deleted = state.status !== 'none' && state.deleted;
  if (state.status === 'none' || (deleted && !roleAtLeast(user.role, 'admin'))) throw new HttpError(404, `no migration ${slug}`);
  return { slug, name: state.name, deleted, lines: chainEvents(events.map(auditEventOf)) };
}
