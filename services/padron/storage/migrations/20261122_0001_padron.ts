import { sql, type Kysely } from 'kysely';

/**
 * The padrón's own storage (schema `padron`), which the lookup service reads and only the importer
 * writes.
 *
 * `loads` is one row per import attempt. `rates` is partitioned by load: an import COPYs into a
 * standalone, unindexed table, indexes it, and publishes it by attaching it as a partition and
 * marking its load `published` in one transaction, so a reader sees the whole load or none of it.
 * Dropping a partition is how old loads go. At most one live row per jurisdiction and file: a second
 * import of the same file while the first runs is refused by the unique index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table padron.loads (
    load_id integer generated always as identity primary key,
    state char(1) not null,
    file_name text not null,
    sha256 text not null,
    status text not null default 'loading' check (status in ('loading', 'published', 'failed', 'expired')),
    layout text,
    regimes text not null default '',
    valid_from date,
    valid_to date,
    rows_loaded integer not null default 0,
    report jsonb,
    error text,
    started_at timestamptz not null default now(),
    published_at timestamptz,
    finished_at timestamptz
  )`.execute(db);
  await sql`create unique index loads_one_live_per_file on padron.loads (state, sha256) where status in ('loading', 'published')`.execute(db);
  await sql`create index loads_published on padron.loads (state, valid_from) where status = 'published'`.execute(db);
  await sql`create table padron.rates (
    load_id integer not null,
    cuit bigint not null,
    regime char(1) not null,
    aliquot numeric not null,
    date_from date,
    date_to date,
    kind text,
    grp text,
    line integer not null
  ) partition by list (load_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table padron.rates`.execute(db);
  await sql`drop table padron.loads`.execute(db);
}
