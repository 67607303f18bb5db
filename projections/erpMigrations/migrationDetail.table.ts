import type { JSONColumnType } from 'kysely';
import type { Engine, Flavor, MigrationStatus, Purpose } from '#services/migrations/domain/migration.ts';
import type { JobStatus } from '#shared/workflow/jobState.ts';

/** A migration's input as the API shows it: no upload id, and a pull URL without its user and password. */
export interface MigrationInputOut {
  mode: 'pull' | 'upload' | 'none';
  pull_url: string | null;
  dump_name: string | null;
  filestore_name: string | null;
  bytes: number | null;
  sha256: string | null;
}

/** One row per migration: its page, the list page and the API's list. */
export interface MigrationDetailTable {
  slug: string;
  name: string;
  origin: string;
  destination: string;
  flavor: Flavor;
  engine: Engine;
  purpose: Purpose;
  /** `…` and the contract's last 4 characters, or null: the read model never holds the whole contract. */
  contract_hint: string | null;
  /** jsonb: written as a JSON string, read back as the array. */
  notify_to: JSONColumnType<string[]>;
  status: MigrationStatus;
  recipe_key: string;
  recipe_sha256: string;
  working_database: string;
  input: JSONColumnType<MigrationInputOut>;
  /** The last run's number and its job's status; null for a draft (never ran, or stopped). */
  last_run_number: number | null;
  last_run_status: JobStatus | null;
  /** The last run failed in a pre-flight step: run-anyway is offered. */
  preflight_failed: boolean;
  /** The project whose repository holds the customer's code, or null. */
  project: string | null;
  /** jsonb: per destination version, `{ branch, commit }` of that code; `{}` for none. */
  code: JSONColumnType<Record<string, { branch: string; commit: string | null }>>;
  /** When migrated: the recipe snapshot its successful run followed (*Run* is refused while it is still recipe_sha256); null otherwise. */
  migrated_recipe_sha256: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface MigrationDetailDb {
  migration_detail: MigrationDetailTable;
}
