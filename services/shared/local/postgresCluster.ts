import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { installDebianPackage } from './debianPackage.ts';
import { ensureSystemUser } from './systemUser.ts';
import { freePort, isPortFree } from './freePort.ts';

const run = promisify(execFile);

export interface PostgresCluster {
  /** URL of the cluster's `forja` database. */
  url: string;
  /** URL of a database of the given name on the same cluster. */
  urlFor(database: string): string;
  port: number;
  /** The cluster's folder (pgdata, log, state). */
  dir: string;
  /** False when the cluster was already running (another process started it). */
  startedHere: boolean;
  stop(): Promise<void>;
}

interface ClusterState {
  port: number;
  password: string;
}

const SEARCH_DIRS = ['/usr/lib/postgresql'];

/**
 * A private PostgreSQL cluster in `dataDir`, listening on 127.0.0.1 only, with a generated
 * password stored beside it. Starting it again reuses the cluster (and its port when free);
 * starting a running one just connects. As root the server runs as `osUser` (`postgres` unless
 * told otherwise; created when missing), because PostgreSQL refuses to run as root. Clusters of
 * different trust run as different users, so one's files are out of the other's reach.
 */
export async function startPostgresCluster(dataDir: string, database = 'forja', options: { binDir?: string; osUser?: string } = {}): Promise<PostgresCluster> {
  const dir = resolve(dataDir);
  const pgdata = join(dir, 'pgdata');
  const statePath = join(dir, 'cluster.json');
  const bin = options.binDir ? checkedBinDir(options.binDir) : findPostgresBin();
  const owner = process.getuid?.() === 0 ? ensureSystemUser(options.osUser ?? 'postgres').name : undefined;

  mkdirSync(dir, { recursive: true });
  if (owner) {
    chownTo(dir, owner);
    assertReachableBy(owner, dir);
  }
  let state: ClusterState;
  if (!existsSync(join(pgdata, 'PG_VERSION'))) {
    state = { port: await freePort(), password: randomBytes(18).toString('base64url') };
    await initCluster(bin, pgdata, state.password, owner);
    writeFileSync(statePath, JSON.stringify(state), { mode: 0o600 });
  } else {
    state = JSON.parse(readFileSync(statePath, 'utf8')) as ClusterState;
  }

  const baseUrl = (db: string) => `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${state.port}/${db}`;
  const startedHere = !(await answers(baseUrl('postgres')));
  if (startedHere) {
    // A cluster made under another user (before clusters had users of their own) changes hands while it is down.
    if (owner && existsSync(pgdata)) chownTreeTo(dir, owner);
    if (!(await isPortFree(state.port))) {
      state.port = await freePort();
      writeFileSync(statePath, JSON.stringify(state), { mode: 0o600 });
    }
    await pgCtl(bin, owner, ['-D', pgdata, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', '-o', serverOptions(state.port, dir), 'start'], dir);
  }
  await ensureDatabase(baseUrl('postgres'), database);

  return {
    url: baseUrl(database),
    urlFor: baseUrl,
    port: state.port,
    dir,
    startedHere,
    stop: async () => {
      if (existsSync(join(pgdata, 'postmaster.pid'))) {
        await pgCtl(bin, owner, ['-D', pgdata, '-m', 'fast', '-w', '-t', '60', 'stop'], dir).catch(() => undefined);
      }
    },
  };
}

const MISSING = 'PostgreSQL server binaries not found: install them (apt-get install postgresql) or set DATABASE_URL';

/** The folder holding `pg_ctl` and `initdb`; installs Debian's PostgreSQL when there is none and we may. */
function findPostgresBin(): string {
  const found = locatePostgresBin();
  if (found) return found;
  installDebianPackage('postgresql', MISSING);
  return locatePostgresBin() ?? fail(MISSING);
}

function fail(message: string): never {
  throw new Error(message);
}

/** From PATH, else the newest Debian install. */
function locatePostgresBin(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).stdout.trim();
  if (onPath && existsSync(onPath.replace(/pg_ctl$/, 'initdb'))) return onPath.replace(/\/pg_ctl$/, '');
  for (const base of SEARCH_DIRS) {
    if (!existsSync(base)) continue;
    const versions = readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = join(base, version, 'bin');
      if (existsSync(join(bin, 'pg_ctl'))) return bin;
    }
  }
  return undefined;
}

function checkedBinDir(dir: string): string {
  if (!existsSync(join(dir, 'pg_ctl')) || !existsSync(join(dir, 'initdb'))) {
    throw new Error(`PostgreSQL server binaries not found in ${dir}: install them (apt-get install postgresql) or set DATABASE_URL`);
  }
  return dir;
}

async function initCluster(bin: string, pgdata: string, password: string, owner: string | undefined): Promise<void> {
  const pwfile = join(pgdata, '..', '.pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) chownTo(pwfile, owner);
  try {
    await asOwner(owner, join(bin, 'initdb'), ['-D', pgdata, '-U', 'postgres', '--pwfile', pwfile, '-A', 'scram-sha-256', '-E', 'UTF8', '--locale', 'C.UTF-8']);
  } finally {
    writeFileSync(pwfile, '');
  }
}

/** TCP on loopback only, and the unix socket in the cluster folder rather than /var/run. */
function serverOptions(port: number, dir: string): string {
  return `-p ${port} -h 127.0.0.1 -k ${dir} -c max_connections=200 -c shared_buffers=256MB`;
}

async function pgCtl(bin: string, owner: string | undefined, args: string[], dir: string): Promise<void> {
  try {
    await asOwner(owner, join(bin, 'pg_ctl'), args);
  } catch (error) {
    const log = existsSync(join(dir, 'postgres.log')) ? readFileSync(join(dir, 'postgres.log'), 'utf8').split('\n').slice(-8).join('\n') : '';
    throw new Error(`pg_ctl ${args.at(-1)} failed: ${(error as Error).message.split('\n')[0]}\n${log}`);
  }
}

async function asOwner(owner: string | undefined, command: string, args: string[]): Promise<void> {
  if (owner) await run('runuser', ['-u', owner, '--', command, ...args]);
  else await run(command, args);
}

/** PostgreSQL runs as `owner`, who must be able to walk down to the folder. */
function assertReachableBy(owner: string, dir: string): void {
  if (spawnSync('runuser', ['-u', owner, '--', 'test', '-w', dir]).status !== 0) {
    throw new Error(`the ${owner} user cannot write ${dir}: make its parent folders traversable (chmod o+x) or choose another FORJA_DATA_DIR`);
  }
}

function chownTreeTo(dir: string, user: string): void {
  const ids = spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim();
  if (statSync(join(dir, 'pgdata')).uid === Number(ids)) return;
  const result = spawnSync('chown', ['-R', `${user}:`, dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cannot give ${dir} to ${user}: ${result.stderr.trim()}`);
}

function chownTo(path: string, user: string): void {
  const ids = spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim();
  const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim();
  chownSync(path, Number(ids), Number(gid));
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (rowCount === 0) await client.query(`create database ${pg.escapeIdentifier(database)}`).catch(ignoreDuplicate);
  } finally {
    await client.end();
  }
}

function ignoreDuplicate(error: { code?: string }): void {
  if (error.code !== '42P04') throw error;
}
