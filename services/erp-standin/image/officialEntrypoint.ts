/**
 * What the official image's entrypoint (odoo/docker `<version>/entrypoint.sh`) makes of its
 * arguments, environment and `$ODOO_RC`, so the stand-in image fails where the official one does.
 * Two generations:
 * - up to 18.0 it always appends `--db_host --db_port --db_user --db_password`, each taken from
 *   `$ODOO_RC` when a line names it (the line's third space-separated field, `cut -d " " -f3`),
 *   else from HOST/PORT/USER/PASSWORD or their defaults (`db`, 5432, `odoo`, `odoo`): the
 *   password is on the ERP's command line, visible in `ps` on the host;
 * - 19.0 appends one only when `$ODOO_RC` has no line for it (an unreadable file has none, as
 *   `grep` finds nothing) and its PG* variable is unset.
 * Then `odoo`/`--` and `-…` first arguments wait for PostgreSQL (wait-for-psql.py, 30 s) and exec
 * `odoo`; `scaffold` and any other command are exec'd as they are.
 */
export interface EntrypointPlan {
  /** The command the entrypoint execs. */
  exec: string[];
  /** The database it waits for first, as wait-for-psql.py reads its arguments (and, on 19.0, $ODOO_RC). */
  waitFor: DatabaseWait | null;
}

export interface DatabaseWait {
  host?: string | undefined;
  port?: string | undefined;
  user?: string | undefined;
  password?: string | undefined;
  timeoutSeconds: number;
}

const PARAMS = [
  { name: 'db_host', env: 'HOST', fallbacks: ['DB_PORT_5432_TCP_ADDR'], default: 'db', pg: 'PGHOST' },
  { name: 'db_port', env: 'PORT', fallbacks: ['DB_PORT_5432_TCP_PORT'], default: '5432', pg: 'PGPORT' },
  { name: 'db_user', env: 'USER', fallbacks: ['DB_ENV_POSTGRES_USER', 'POSTGRES_USER'], default: 'odoo', pg: 'PGUSER' },
  { name: 'db_password', env: 'PASSWORD', fallbacks: ['DB_ENV_POSTGRES_PASSWORD', 'POSTGRES_PASSWORD'], default: 'odoo', pg: 'PGPASSWORD' },
] as const;

/** `grep -E "^\s*\b<param>\b\s*=" "$ODOO_RC"`: the lines that set it, none when the file could not be read. */
function linesSetting(rcText: string | null, param: string): string[] {
  if (rcText === null) return [];
  const pattern = new RegExp(`^\\s*\\b${param}\\b\\s*=`);
  return rcText.split('\n').filter((line) => pattern.test(line));
}

/** `cut -d " " -f3 | sed 's/["\n\r]//g'` on those lines: a line without a space is printed whole. */
function thirdField(lines: string[]): string {
  return lines.map((line) => (line.includes(' ') ? (line.split(' ')[2] ?? '') : line).replace(/["\r]/g, '')).join('\n');
}

const seriesOf = (version: string) => Number.parseInt(version, 10);

export function databaseArgs(version: string, env: NodeJS.ProcessEnv, rcText: string | null, passwordFile: string | null): string[] {
  const args: string[] = [];
  for (const param of PARAMS) {
    const fromEnv = param.name === 'db_password' && passwordFile !== null ? passwordFile : [param.env, ...param.fallbacks].map((name) => env[name]).find((value) => value !== undefined && value !== '');
    const value = fromEnv ?? param.default;
    const lines = linesSetting(rcText, param.name);
    if (seriesOf(version) >= 19) {
      if (env[param.pg] !== undefined) continue;
      if (lines.length === 0) args.push(`--${param.name}`, value);
    } else {
      args.push(`--${param.name}`, lines.length > 0 ? thirdField(lines) : value);
    }
  }
  return args;
}

/** The options of an `[options]` section, as 19.0's wait-for-psql.py reads $ODOO_RC first. */
function rcOptions(rcText: string | null): Map<string, string> {
  const options = new Map<string, string>();
  let section = '';
  for (const line of (rcText ?? '').split('\n')) {
    const header = /^\[([^\]]+)\]/.exec(line);
    if (header) section = header[1]!;
    const pair = /^([^=:;#\s][^=:]*?)\s*[=:]\s*(.*)$/.exec(line);
    if (section === 'options' && pair) options.set(pair[1]!.trim().toLowerCase(), pair[2]!.trim());
  }
  return options;
}

function argValue(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? undefined : args[at + 1];
}

function databaseWait(version: string, dbArgs: string[], env: NodeJS.ProcessEnv, rcText: string | null): DatabaseWait {
  if (seriesOf(version) < 19) {
    return { host: argValue(dbArgs, 'db_host'), port: argValue(dbArgs, 'db_port'), user: argValue(dbArgs, 'db_user'), password: argValue(dbArgs, 'db_password'), timeoutSeconds: 30 };
  }
  const options = rcOptions(rcText);
  const pick = (name: string, pg: string) => options.get(name) || argValue(dbArgs, name) || env[pg];
  return { host: pick('db_host', 'PGHOST'), port: pick('db_port', 'PGPORT'), user: pick('db_user', 'PGUSER'), password: pick('db_password', 'PGPASSWORD'), timeoutSeconds: 30 };
}

export function planEntrypoint(version: string, argv: string[], env: NodeJS.ProcessEnv, rcText: string | null, passwordFile: string | null = null): EntrypointPlan {
  const dbArgs = databaseArgs(version, env, rcText, passwordFile);
  const [first, ...rest] = argv;
  if (first === '--' || first === 'odoo') {
    if (rest[0] === 'scaffold') return { exec: ['odoo', ...rest], waitFor: null };
    return { exec: ['odoo', ...rest, ...dbArgs], waitFor: databaseWait(version, dbArgs, env, rcText) };
  }
  if (first?.startsWith('-')) return { exec: ['odoo', ...argv, ...dbArgs], waitFor: databaseWait(version, dbArgs, env, rcText) };
  return { exec: argv, waitFor: null };
}
