import type pg from 'pg';

/**
 * `ir_module_module`, the part of the real ERP's table Forja reads (name, state, latest_version,
 * demo), its dependencies, and the few base tables migration recipes and neutralization look at
 * (scheduled actions, mail servers, views, attachments, parameters, mail templates), with the real ERP's column names.
 */
export async function createModuleRegistry(client: pg.Client): Promise<void> {
  await client.query(`create table if not exists ir_module_module (
    id serial primary key,
    name varchar not null unique,
    state varchar not null,
    latest_version varchar,
    write_date timestamp not null default (now() at time zone 'utc')
  )`);
  await client.query(`alter table ir_module_module add column if not exists demo boolean not null default false`);
  await client.query(`create table if not exists ir_module_module_dependency (
    id serial primary key,
    module_id integer not null references ir_module_module (id) on delete cascade,
    name varchar not null,
    unique (module_id, name)
  )`);
  await client.query(`create table if not exists ir_cron (id serial primary key, name varchar not null, active boolean not null default true)`);
  // Odoo's ir.mail_server (odoo/addons/base/models/ir_mail_server.py) logs in with smtp_user and smtp_pass when smtp_user is set.
  await client.query(`create table if not exists ir_mail_server (
    id serial primary key, name varchar not null, smtp_host varchar not null, smtp_port integer not null default 25,
    smtp_encryption varchar not null default 'none', smtp_authentication varchar not null default 'login', smtp_user varchar, smtp_pass varchar, active boolean not null default true
  )`);
  await client.query(`alter table ir_mail_server add column if not exists smtp_pass varchar`);
  await client.query(`create table if not exists ir_ui_view (id serial primary key, name varchar not null, active boolean not null default true)`);
  // base's res.partner, for the demo partners base installs with demo data (odoo/addons/base/data/res_partner_demo.xml).
  await client.query(`create table if not exists res_partner (id serial primary key, name varchar not null, is_company boolean not null default false, active boolean not null default true)`);
  // `key` names a view across databases (`web.neutralize_banner`), as on the real ir.ui.view.
  await client.query(`alter table ir_ui_view add column if not exists key varchar`);
  await client.query(`create table if not exists ir_config_parameter (id serial primary key, key varchar not null unique, value text not null)`);
  await client.query(`create table if not exists mail_template (id serial primary key, name varchar not null, mail_server_id integer)`);
  await client.query(`create table if not exists ir_attachment (id serial primary key, name varchar not null, res_model varchar, store_fname varchar)`);
}

/** Whether base was installed with demo data: modules installed later get demo data too (their dependency has it). */
export async function databaseHasDemo(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ demo: boolean }>(`select demo from ir_module_module where name = 'base' and state = 'installed'`);
  return rows[0]?.demo === true;
}

/** The installed modules and their `latest_version`, in the order they were registered. */
export async function installedVersions(client: pg.Client): Promise<Map<string, string | null>> {
  const { rows } = await client.query<{ name: string; latest_version: string | null }>(`select name, latest_version from ir_module_module where state = 'installed' order by id`);
  return new Map(rows.map((row) => [row.name, row.latest_version]));
}

/** The real ERP's "updating modules list": modules it can find get a row, `uninstalled`. */
export async function addKnownModules(client: pg.Client, names: readonly string[]): Promise<void> {
  await client.query(`insert into ir_module_module (name, state) select unnest($1::varchar[]), 'uninstalled' on conflict (name) do nothing`, [names]);
}

export async function registeredAmong(client: pg.Client, names: readonly string[]): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>('select name from ir_module_module where name = any($1::varchar[])', [names]);
  return new Set(rows.map((row) => row.name));
}

/** The demo partner base's demo data installs: what a test looks for to see demo data was loaded. */
export const DEMO_PARTNER = 'Azure Interior';

/**
 * Installs or updates `name` at `version`; every module but base depends on base. `demo` is
 * recorded when the module gets installed (an update keeps the flag it had), as the real ERP
 * keeps `ir_module_module.demo`; base installed with demo data also writes base's demo partner.
 */
export async function setInstalled(client: pg.Client, name: string, version: string, demo = false): Promise<void> {
  await client.query(
    `insert into ir_module_module (name, state, latest_version, demo) values ($1, 'installed', $2, $3)
     on conflict (name) do update set state = 'installed', latest_version = $2, write_date = now() at time zone 'utc',
       demo = case when ir_module_module.state = 'installed' then ir_module_module.demo else $3 end`,
    [name, version, demo],
  );
  if (name === 'base' && demo) {
    await client.query(`insert into res_partner (name, is_company) select $1::varchar, true where not exists (select 1 from res_partner where name = $1::varchar)`, [DEMO_PARTNER]);
  }
  // The real web module ships its "neutralized database" banner view inactive (addons/web/views/neutralize_views.xml); neutralize activates it.
  if (name === 'web') {
    await client.query(`insert into ir_ui_view (name, key, active) select 'neutralize_banner', 'web.neutralize_banner', false where not exists (select 1 from ir_ui_view where key = 'web.neutralize_banner')`);
  }
  if (name !== 'base') {
    await client.query(`insert into ir_module_module_dependency (module_id, name) select id, 'base' from ir_module_module where name = $1 on conflict do nothing`, [name]);
  }
}
