import pg from 'pg';
import type { StandinOptions } from './args.ts';

/**
 * The ERP's module registry, as the real ERP keeps it: `ir_module_module` with one row per module
 * and its state. `base` is always installed, as in the real thing.
 */
export async function initializeDatabase(options: StandinOptions, log: (level: string, logger: string, message: string) => void): Promise<void> {
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
    for (const name of ['base', ...options.install.filter((name) => name !== 'base')]) {
      await client.query(
        `insert into ir_module_module (name, state, latest_version) values ($1, 'installed', '1.0')
         on conflict (name) do update set state = 'installed', write_date = now() at time zone 'utc'`,
        [name],
      );
      if (options.install.includes(name)) log('INFO', 'odoo.modules.loading', `module ${name}: installed`);
    }
    for (const name of options.update) {
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

async function ensureDatabase(connection: pg.ClientConfig, database: string, log: (level: string, logger: string, message: string) => void): Promise<void> {
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
