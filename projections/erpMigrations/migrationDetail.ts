import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { MigrationChanges, MigrationInput, MigrationSettings } from '#services/migrations/domain/migration.ts';
import type { MigrationActionView } from '#services/migrations/domain/migrationActions.ts';
import type { ReadModel } from '../readModel.ts';
import type { MigrationDetailTable, MigrationInputOut } from './migrationDetail.table.ts';

export type MigrationDetailRow = Selectable<MigrationDetailTable>;

/** What the domain's action rules look at, from the row (see migrationActionView for the folded state). */
export const migrationActionViewOf = (row: MigrationDetailRow): MigrationActionView => ({
  slug: row.slug,
  status: row.status,
  inputMode: row.input.mode,
  preflightFailed: row.preflight_failed,
  recipeSha256: row.recipe_sha256,
  migratedRecipeSha256: row.migrated_recipe_sha256,
});

export interface MigrationFilters {
  /** One of the migration statuses; empty or absent for all. */
  status?: string;
  /** A case-insensitive part of the name. */
  search?: string;
  /** From 1; with `pageSize` only. */
  page?: number;
  /** Rows per page; absent for every matching row (the API's list). */
  pageSize?: number;
}

export function getMigration(db: ReadModel, slug: string): Promise<MigrationDetailRow | undefined> {
  return db.selectFrom('migration_detail').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** The migrations matching the filters, most recently changed first, and how many match in all. */
export async function listMigrations(db: ReadModel, filters: MigrationFilters = {}): Promise<{ rows: MigrationDetailRow[]; total: number }> {
  let matching = db.selectFrom('migration_detail');
  if (filters.status) matching = matching.where('status', '=', filters.status as MigrationDetailRow['status']);
  const search = filters.search?.trim().toLowerCase();
  if (search) matching = matching.where(sql`lower(name)`, 'like', `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const [{ total } = { total: 0 }] = await matching.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  let rows = matching.selectAll().orderBy('updated_at', 'desc').orderBy('slug');
  if (filters.pageSize !== undefined) rows = rows.limit(filters.pageSize).offset((Math.max(1, filters.page ?? 1) - 1) * filters.pageSize);
  return { rows: await rows.execute(), total: Number(total) };
}

/** `…` and the last 4 characters: enough to tell contracts apart, not enough to use one. A short contract shows none of itself. */
export function contractHint(contract: string | null): string | null {
  if (contract === null || contract.trim() === '') return null;
  return contract.length > 4 ? `…${contract.slice(-4)}` : '…';
}

/**
 * `url` without its user and password (`https://user:pw@host/x` → `https://host/x`), otherwise as
 * written. A URL that does not parse loses everything up to its last `@`, so nothing that may be a
 * password is kept.
 */
export function withoutUserinfo(url: string): string {
  const parses = URL.canParse(url);
  const userinfo = parses ? /^([a-z][a-z0-9+.-]*:\/\/)[^/?#\\]*@/i : /^([a-z][a-z0-9+.-]*:\/\/)?.*@/i;
  return url.replace(userinfo, '$1');
}

export function inputOut(input: MigrationInput): MigrationInputOut {
  const none = { pull_url: null, dump_name: null, filestore_name: null, bytes: null, sha256: null };
  switch (input.mode) {
    case 'pull':
      return { mode: 'pull', ...none, pull_url: withoutUserinfo(input.pullUrl) };
    case 'upload':
      return { mode: 'upload', ...none, dump_name: input.dumpName, filestore_name: input.filestoreName, bytes: input.bytes, sha256: input.sha256 };
    case 'none':
      return { mode: 'none', ...none };
    default: {
      const unknown: never = input;
      return unknown;
    }
  }
}

/** A new migration's row: a draft that never ran. */
export function draftRow(settings: MigrationSettings, createdBy: string, at: Date): Insertable<MigrationDetailTable> {
  return {
    slug: settings.slug,
    name: settings.name,
    origin: settings.origin,
    destination: settings.destination,
    flavor: settings.flavor,
    engine: settings.engine,
    purpose: settings.purpose,
    contract_hint: contractHint(settings.contract),
    notify_to: JSON.stringify(settings.notifyTo),
    status: 'draft',
    recipe_key: settings.recipe.key,
    recipe_sha256: settings.recipe.sha256,
    working_database: settings.workingDatabase,
    input: JSON.stringify(inputOut(settings.input)),
    last_run_number: null,
    last_run_status: null,
    preflight_failed: false,
    project: settings.project ?? null,
    code: JSON.stringify(settings.code ?? {}),
    migrated_recipe_sha256: null,
    created_by: createdBy,
    created_at: at,
    updated_at: at,
  };
}

/** The columns an edit changes. */
export function editedColumns(changes: MigrationChanges): Updateable<MigrationDetailTable> {
  const { origin, destination, flavor, engine, purpose, contract, notifyTo, recipe, project, code } = changes;
  return {
    ...(origin === undefined ? {} : { origin }),
    ...(destination === undefined ? {} : { destination }),
    ...(flavor === undefined ? {} : { flavor }),
    ...(engine === undefined ? {} : { engine }),
    ...(purpose === undefined ? {} : { purpose }),
    ...(contract === undefined ? {} : { contract_hint: contractHint(contract) }),
    ...(notifyTo === undefined ? {} : { notify_to: JSON.stringify(notifyTo) }),
    ...(recipe === undefined ? {} : { recipe_key: recipe.key, recipe_sha256: recipe.sha256 }),
    ...(project === undefined ? {} : { project }),
    ...(code === undefined ? {} : { code: JSON.stringify(code) }),
  };
}
