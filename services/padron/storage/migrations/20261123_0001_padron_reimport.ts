import { sql, type Kysely } from 'kysely';

/**
 * A file may be published again: after retention dropped its load, or for a regime its earlier
 * import left out (`--regime P`, then `R`). So the one-live-row-per-file rule narrows to imports in
 * progress (two runs of the same file never load at once), and each load remembers the regime it
 * was asked for (null: every regime the file has), which is what makes a re-import "unchanged".
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table padron.loads add column asked_regime char(1) check (asked_regime in ('P', 'R'))`.execute(db);
  await sql`drop index padron.loads_one_live_per_file`.execute(db);
  await sql`create unique index loads_one_import_per_file on padron.loads (state, sha256) where status = 'loading'`.execute(db);
  await sql`create index loads_by_file on padron.loads (state, sha256)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index padron.loads_by_file`.execute(db);
  await sql`drop index padron.loads_one_import_per_file`.execute(db);
  await sql`create unique index loads_one_live_per_file on padron.loads (state, sha256) where status in ('loading', 'published')`.execute(db);
  await sql`alter table padron.loads drop column asked_regime`.execute(db);
}
