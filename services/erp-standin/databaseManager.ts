import { spawn } from 'node:child_process';
import pg from 'pg';
import type { StandinOptions } from './args.ts';
import { storedZip } from './backupZip.ts';
import { hashMasterPassword, verifyMasterPassword } from './masterPassword.ts';

type Log = (level: string, logger: string, message: string) => void;

/** `odoo.exceptions.AccessDenied`: its `http_status` is 403 (odoo/exceptions.py). */
export class AccessDenied extends Error {
  override readonly name = 'AccessDenied';
  readonly httpStatus = 403;
  constructor(message = 'Access Denied') {
    super(message);
  }
}

/**
 * The database manager's checks and operations (`addons/web/controllers/database.py`,
 * `odoo/service/db.py`), on the configuration the stand-in started with.
 */
export class DatabaseManager {
  private adminPasswd: string | false;

  constructor(
    private readonly options: StandinOptions,
    private readonly log: Log,
  ) {
    this.adminPasswd = options.adminPasswd;
  }

  get listDb(): boolean {
    return this.options.listDb;
  }

  /** `config.verify_admin_password('admin')`: the page's "insecure" warning, and what lets any password in. */
  insecure(): Promise<boolean> {
    return verifyMasterPassword(this.adminPasswd, 'admin');
  }

  /**
   * `verify_access` (addons/web/controllers/database.py): the manager must be enabled
   * (`verify_db_management_enabled`, odoo/modules/db.py: `list_db`); while the master password is
   * still the default `admin`, whatever master_pwd is submitted becomes the new master password
   * (`config.set_admin_password`, then saved to the configuration file; the stand-in keeps it in
   * memory); then `check_super` (odoo/service/db.py): a non-empty password that verifies.
   */
  async verifyAccess(masterPwd: string): Promise<void> {
    if (!this.options.listDb) {
      this.log('ERROR', 'odoo.service.db', 'Database management functions blocked, admin disabled database listing');
      throw new AccessDenied('Database management functions blocked, admin disabled database listing.');
    }
    if (masterPwd && (await this.insecure())) {
      this.adminPasswd = await hashMasterPassword(masterPwd);
      this.log('WARNING', 'odoo.tools.config', 'the default master password was replaced by the one submitted to the database manager');
    }
    if (!masterPwd || !(await verifyMasterPassword(this.adminPasswd, masterPwd))) throw new AccessDenied();
  }

  /**
   * `list_dbs(force)` (odoo/service/db.py): refused while the manager is disabled unless forced;
   * with `-d` and no `--db-filter` the list is the `-d` databases, without asking the server.
   */
  listDatabases(force = false): string[] {
    if (!this.options.listDb && !force) throw new AccessDenied();
    return this.options.database.split(',').map((name) => name.trim()).sort();
  }

  /**
   * `dump_db` (odoo/service/db.py): `pg_dump --no-owner` of the database, any name the server
   * knows. `zip`: the plain SQL as `dump.sql` with a `manifest.json`; any other format a custom
   * archive (`--format=c`).
   */
  async backup(name: string, format: string): Promise<Buffer> {
    this.log('INFO', 'odoo.service.db', `DUMP DB: ${name} format ${format}`);
    if (format !== 'zip') return this.pgDump(name, ['--format=c']);
    const sql = await this.pgDump(name, []);
    const manifest = await this.manifest(name);
    return storedZip([['dump.sql', sql], ['manifest.json', Buffer.from(JSON.stringify(manifest, null, 4))]]);
  }

  /**
   * `exp_drop` (odoo/service/db.py): a name outside `list_dbs(True)` is not dropped (and the
   * controller still redirects); otherwise the database's sessions are ended and it is dropped.
   */
  async drop(name: string): Promise<boolean> {
    if (!this.listDatabases(true).includes(name)) return false;
    const admin = new pg.Client({ ...this.connection(), database: 'postgres' });
    await admin.connect();
    try {
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      await admin.query(`drop database ${pg.escapeIdentifier(name)}`);
    } catch (error) {
      throw new Error(`Couldn't drop database ${name}: ${(error as Error).message}`, { cause: error });
    } finally {
      await admin.end();
    }
    this.log('INFO', 'odoo.service.db', `DROP DB: ${name}`);
    return true;
  }

  private connection() {
    const { dbHost: host, dbPort: port, dbUser: user } = this.options;
    return { host, port, user, password: this.options.dbPassword ?? process.env.PGPASSWORD };
  }

  private async manifest(name: string) {
    const client = new pg.Client({ ...this.connection(), database: name });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; latest_version: string | null }>(`select name, latest_version from ir_module_module where state = 'installed'`);
      const { rows: server } = await client.query<{ server_version_num: string }>('show server_version_num');
      const series = rows.find((row) => row.name === 'base')?.latest_version?.split('.').slice(0, 2).join('.');
      return {
        odoo_dump: '1',
        db_name: name,
        version: series,
        major_version: series,
        pg_version: String(Math.floor(Number(server[0]!.server_version_num) / 10_000)),
        modules: Object.fromEntries(rows.map((row) => [row.name, row.latest_version])),
      };
    } finally {
      await client.end();
    }
  }

  private pgDump(name: string, args: string[]): Promise<Buffer> {
    const { host, port, user, password } = this.connection();
    const env = { ...process.env, PGHOST: host, PGPORT: String(port), PGUSER: user, ...(password ? { PGPASSWORD: password } : {}) };
    return new Promise((resolveDump, reject) => {
      const child = spawn('pg_dump', ['--no-owner', ...args, '--', name], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolveDump(Buffer.concat(out)) : reject(new Error(`Command \`pg_dump\` failed: ${Buffer.concat(err).toString().trim()}`))));
    });
  }
}
