import type { Highlight } from '#services/migrations/audit/migrationEventSummary.ts';
import type { MigrationStateView } from '#services/migrations/audit/migrationStateView.ts';

/** One event of the history (schemas/api/MigrationHistoryOut.v1.json, `events[]`). */
export interface HistoryEntryOut {
  version: number;
  global_position: number;
  id: string;
  type: string;
  at: string;
  recorded_at: string;
  actor: string;
  actor_id: string;
  host: string | null;
  via: string | null;
  correlation_id: string;
  causation_id: string;
  caused_by_version: number | null;
  run: number | null;
  summary: string;
  highlight: Highlight | null;
  prev_hash: string;
  hash: string;
}

/** GET /internal/migrations/{slug}/history (schemas/api/MigrationHistoryOut.v1.json). */
export interface MigrationHistoryOut {
  slug: string;
  name: string;
  deleted: boolean;
  events_total: number;
  head_hash: string;
  filters: { run: number | null; actor: string | null; type: string | null };
  choices: { runs: number[]; actors: string[]; types: string[] };
  events: HistoryEntryOut[];
}

/** GET /internal/migrations/{slug}/history/{position} (schemas/api/MigrationStateAsOfOut.v1.json). */
export interface MigrationStateAsOfOut {
  slug: string;
  name: string;
  deleted: boolean;
  events_total: number;
  version: number;
  previous: number | null;
  next: number | null;
  event: HistoryEntryOut;
  state: MigrationStateView;
}
