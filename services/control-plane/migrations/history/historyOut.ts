import { findUserById } from '#projections/users/users.ts';
import type { ReadModel } from '#projections/readModel.ts';
import type { AuditLine } from '#services/migrations/audit/auditChain.ts';
import { highlightOf, runOf, summarizeMigrationEvent } from '#services/migrations/audit/migrationEventSummary.ts';
import { migrationStateAsOf, migrationStateView } from '#services/migrations/audit/migrationStateView.ts';
import type { HistoryFilters } from './historyFilters.ts';
import type { MigrationHistory } from './historyEvents.ts';

/** One row of MigrationHistoryOut (schemas/api/MigrationHistoryOut.v1.json). */
export type HistoryEntry = ReturnType<typeof entryOf>;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Who the actors are: a user's e-mail from the users read model, `system` for the platform. */
async function actorLabels(readModel: ReadModel, lines: readonly AuditLine[]): Promise<Map<string, string>> {
  const ids = [...new Set(lines.map((line) => String(line.metadata['actor'])))].filter((id) => id !== 'system');
  const users = await Promise.all(ids.map(async (id) => [id, (await findUserById(readModel, id))?.email ?? `unknown user ${id}`] as const));
  return new Map([['system', 'system'], ...users]);
}

function entryOf(line: AuditLine, actors: ReadonlyMap<string, string>, versionOfId: ReadonlyMap<string, number>) {
  const { metadata } = line;
  const causation = String(metadata['causationId']);
  return {
    version: line.version,
    global_position: line.global_position,
    id: line.id,
    type: line.type,
    at: String(metadata['at']),
    recorded_at: line.recorded_at,
    actor: actors.get(String(metadata['actor'])) ?? String(metadata['actor']),
    actor_id: String(metadata['actor']),
    /** The executor host that decided a system event (older events name none). */
    host: text(metadata['host']),
    via: text(metadata['via']),
    correlation_id: String(metadata['correlationId']),
    causation_id: causation,
    /** The event of this stream that caused this one, when it is one. */
    caused_by_version: versionOfId.get(causation) ?? null,
    run: runOf(line),
    summary: summarizeMigrationEvent(line),
    highlight: highlightOf(line),
    prev_hash: line.prev_hash,
    hash: line.hash,
  };
}

/** Every event of the history as a row, in stream order. */
export async function historyEntries(readModel: ReadModel, history: MigrationHistory): Promise<HistoryEntry[]> {
  const actors = await actorLabels(readModel, history.lines);
  const versionOfId = new Map(history.lines.map((line) => [line.id, line.version]));
  return history.lines.map((line) => entryOf(line, actors, versionOfId));
}

const matches = (entry: HistoryEntry, filters: HistoryFilters) =>
  (filters.run === null || entry.run === filters.run) && (filters.actor === null || entry.actor === filters.actor || entry.actor_id === filters.actor) && (filters.type === null || entry.type === filters.type);

/** MigrationHistoryOut: the rows the filters keep, with what the filters may choose from. */
export async function historyOut(readModel: ReadModel, history: MigrationHistory, filters: HistoryFilters) {
  const entries = await historyEntries(readModel, history);
  const distinct = <T>(values: T[]) => [...new Set(values)];
  return {
    slug: history.slug,
    name: history.name,
    deleted: history.deleted,
    events_total: entries.length,
    head_hash: history.lines.at(-1)!.hash,
    filters,
    choices: {
      runs: distinct(entries.flatMap((entry) => (entry.run === null ? [] : [entry.run]))).sort((a, b) => a - b),
      actors: distinct(entries.map((entry) => entry.actor)).sort(),
      types: distinct(entries.map((entry) => entry.type)).sort(),
    },
    events: entries.filter((entry) => matches(entry, filters)),
  };
}

/** MigrationStateAsOfOut: the state folded up to event `version`, that event, and its neighbours. */
export async function stateAsOfOut(readModel: ReadModel, history: MigrationHistory, version: number) {
  const entries = await historyEntries(readModel, history);
  const entry = entries[version - 1]!;
  return {
    slug: history.slug,
    name: history.name,
    deleted: history.deleted,
    events_total: entries.length,
    version,
    previous: version > 1 ? version - 1 : null,
    next: version < entries.length ? version + 1 : null,
    event: entry,
    state: migrationStateView(migrationStateAsOf(history.lines, version)),
  };
}

/** The export: one JSON line per event, chained (`auditChain.ts`). */
export const historyJsonl = (history: MigrationHistory): string => history.lines.map((line) => `${JSON.stringify(line)}\n`).join('');
