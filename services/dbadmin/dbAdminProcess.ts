import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { orExit, type Config } from '#shared/config/config.ts';
import { ensureSystemUser } from '#shared/local/systemUser.ts';
import type { Logger } from '#shared/log.ts';
import type { ForjaProcess, StartProcess } from '#shared/platform/process.ts';
import { erpServerAddress } from '#shared/instanceDatabase/erpServerUrl.ts';
import { findAdminer } from './adminerInstall.ts';
import { loadDbAdminSettings, type DbAdminSettings } from './dbAdmin.settings.ts';
import { acceptingOnLoopback } from '#shared/local/acceptingOnLoopback.ts';
import { startChildTool } from '#shared/local/childTool.ts';

/** The path web proxies Adminer under; each instance's database is at /dbadmin/<slug>/. */
export const DBADMIN_PATH = '/dbadmin';
/** Not root: Adminer parses whatever users post, so it runs as an account that can read nothing of Forja's. */
const DBADMIN_OS_USER = 'forja-dbadmin';
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 20_000;
/** Workers of PHP's built-in server: a long query in one tab does not hold up everyone else's pages. */
const WORKERS = 4;

const PHP_DIR = fileURLToPath(new URL('./php', import.meta.url));

const off = (why: string): ForjaProcess => ({ name: 'dbadmin', describe: () => [why], stop: async () => {} });

/** Who PHP runs as: a system user of its own as root (owning its session folder), else us. */
function phpAccount(stateDir: string): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const user = ensureSystemUser(DBADMIN_OS_USER);
  for (const dir of [stateDir, join(stateDir, 'sessions'), join(stateDir, 'tmp')]) chownSync(dir, user.uid, user.gid);
  if (spawnSync('runuser', ['-u', user.name, '--', 'test', '-r', join(PHP_DIR, 'router.php')]).status !== 0) {
    throw new Error(`database admin: the ${user.name} user cannot read ${PHP_DIR}: make its parent folders readable (chmod o+rx)`);
  }
  return { uid: user.uid, gid: user.gid };
}

/**
 * PHP's settings for Adminer: its files, sessions and temporary files only (open_basedir), no
 * commands, no URLs opened as files, and no version in the response headers.
 */
export function phpSettings(adminerDir: string, stateDir: string): string[] {
  const settings: Record<string, string> = {
    open_basedir: [adminerDir, PHP_DIR, stateDir].join(':'),
    'session.save_path': join(stateDir, 'sessions'),
    'session.use_strict_mode': '1',
    'session.cookie_httponly': '1',
    'session.cookie_samesite': 'Lax',
    sys_temp_dir: join(stateDir, 'tmp'),
    upload_tmp_dir: join(stateDir, 'tmp'),
    disable_functions: 'exec,passthru,shell_exec,system,proc_open,popen,pcntl_exec',
    allow_url_fopen: '0',
    memory_limit: '256M',
    expose_php: '0',
    display_errors: '0',
    log_errors: '1',
  };
  return Object.entries(settings).flatMap(([name, value]) => ['-d', `${name}=${value}`]);
}

/**
 * Adminer (Debian's adminer package) under PHP's built-in server on 127.0.0.1, pinned to the
 * instance databases' server (php/forjaAdminer.php). Missing php or adminer only turns it off:
 * npm start says so and goes on. Started after the executor, which creates the private cluster.
 */
export function dbAdminStarter(overrides: Partial<DbAdminSettings> = {}): StartProcess {
  return (_infra, config, logger) => startDbAdmin(config, { ...orExit(() => loadDbAdminSettings()), ...overrides }, logger);
}

export const startDbAdminProcess = dbAdminStarter();

async function startDbAdmin(config: Config, settings: DbAdminSettings, logger: Logger): Promise<ForjaProcess> {
  if (!config.FORJA_DBADMIN) return off('off (FORJA_DBADMIN=false)');
  const install = findAdminer();
  if ('missing' in install) return off(`off: Adminer ${install.missing}`);
  const address = erpServerAddress(config.FORJA_DATA_DIR, settings.FORJA_ERP_DATABASE_URL);
  if (!address) return off('off: no instance database server yet (FORJA_ERP_DATABASE_URL unset and no private cluster: start the executor first)');
  // Only the address, as Adminer takes a server: it never gets the admin's password.
  const server = `${address.host}:${address.port}`;
  const port = config.FORJA_DBADMIN_PORT;
  if (await acceptingOnLoopback(port)) throw new Error(`database admin: port ${port} on ${HOST} is already in use: stop what holds it or set FORJA_DBADMIN_PORT (or FORJA_DBADMIN=false)`);

  const stateDir = join(config.FORJA_DATA_DIR, 'dbadmin');
  for (const dir of [stateDir, join(stateDir, 'sessions'), join(stateDir, 'tmp')]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const account = phpAccount(stateDir);
  // Only what Adminer needs: nothing of Forja's environment (secrets, database URLs) reaches PHP.
  const env = { PATH: process.env['PATH'] ?? '', PHP_CLI_SERVER_WORKERS: String(WORKERS), FORJA_DBADMIN_SERVER: server, FORJA_DBADMIN_ADMINER: install.adminerDir };
  const tool = await startChildTool({
    label: 'database admin (php -S)',
    command: install.php,
    args: [...phpSettings(install.adminerDir, stateDir), '-S', `${HOST}:${port}`, '-t', PHP_DIR, join(PHP_DIR, 'router.php')],
    env,
    cwd: PHP_DIR,
    // The built-in server's workers are its children, and outlive it unless signalled with it.
    processGroup: true,
    ready: () => acceptingOnLoopback(port),
    readyTimeoutMs: READY_TIMEOUT_MS,
    logger: logger.child({ process: 'dbadmin' }),
    ...account,
  });
  return {
    name: 'dbadmin',
    url: `http://${HOST}:${port}${DBADMIN_PATH}/`,
    describe: () => [`Adminer on ${HOST}:${port}, proxied by web at ${DBADMIN_PATH}/<instance>/ (instance databases on ${server} only)`],
    stop: () => tool.stop(),
  };
}
