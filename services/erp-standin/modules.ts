import pg from 'pg';
import type { StandinOptions } from './args.ts';

type Log = (level: string, logger: string, message: string) => void;

/**
 * The ERP's module registry, as the real ERP keeps it: `ir_module_module` with one row per module
 * it knows and its state. Like the real ERP's "updating modules list", each run first adds the
 * modules it can find (`known`) as `uninstalled`. Then, as the real one does, `-i`/`-u` names
 * without a row are logged as invalid and ignored (the run still exits 0), `-i` installs the
 * others and `-u` updates only installed ones. `base` is always installed.
 */
export async function initializeDatabase(options: StandinOptions, known: readonly string[], log: Log): Promise<void> {
  const connection = { host: options.dbHost, port: options.dbPort, user: options.dbUser, password: options.dbPassword };
  await ensureDatabase(connection, options.database, log);
  const client = new pg.Client({ ...connection, database: options.database });
  await client.connect();
  try {
    await client.query(`create table if not exists ir_module_module (
      id serial primary key,
      name varchar not null unique,
      state varchar not null,
      latest_version varchar,
      write_date timestamp not null default (now() at time zone 'utc')
    )`);
    log('INFO', 'odoo.modules.loading', 'updating modules list');
    await client.query(`insert into ir_module_module (name, state) select unnest($1::varchar[]), 'uninstalled' on conflict (name) do nothing`, [['base', ...known]]);
    const registered = await registeredAmong(client, [...options.install, ...options.update]);
    const invalid = [...new Set([...options.install, ...options.update])].filter((name) => !registered.has(name));
    // The real ERP's words, logger and level (odoo/modules/loading.py, _check_module_names).
    if (invalid.length > 0) log('WARNING', 'odoo.modules.loading', `invalid module names, ignored: ${invalid.join(', ')}`);
    for (const name of ['base', ...options.install.filter((name) => name !== 'base' && registered.has(name))]) {
      await client.query(
        `insert into ir_module_module (name, state, latest_version) values ($1, 'installed', '1.0')
         on conflict (name) do update set state = 'installed', latest_version = '1.0', write_date = now() at time zone 'utc'`,
        [name],
      );
      if (options.install.includes(name)) log('INFO', 'odoo.modules.loading', `module ${name}: installed`);
    }
    for (const name of options.update.filter((name) => registered.has(name))) {
      const { rowCount } = await client.query(
        `update ir_module_module set latest_version = '1.0', write_date = now() at time zone 'utc' where name = $1 and state = 'installed'`,
        [name],
      );
      log(rowCount ? 'INFO' : 'WARNING', 'odoo.modules.loading', rowCount ? `module ${name}: updated` : `module ${name}: not installed, nothing to update`);
    }
    const { rows } = await client.query<{ count: number }>(`select count(*)::int as count from ir_module_module where state = 'installed'`);
    log('INFO', 'odoo.modules.loading', `${rows[0]?.count ?? 0} modules loaded`);
  } finally {
    await client.end();
  }
}

async function registeredAmong(client: pg.Client, names: string[]): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>('select name from ir_module_module where name = any($1::varchar[])', [names]);
  return new Set(rows.map((row) => row.name));
}

async function ensureDatabase(connection: pg.ClientConfig, database: string, log: Log): Promise<void> {
  const admin = new pg.Client({ ...connection, database: 'postgres' });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) {
      await admin.query(`create database ${pg.escapeIdentifier(database)}`);
      log('INFO', 'odoo.service.db', `database ${database} created`);
    }
  } finally {
    await admin.end();
  }
}
