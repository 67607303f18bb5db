import { readFileSync } from 'node:fs';
import pg from 'pg';
import { planEntrypoint, type DatabaseWait } from './officialEntrypoint.ts';

/**
 * The stand-in image's /entrypoint.sh runs this, then `eval exec` what it prints: the command the
 * official entrypoint would exec (officialEntrypoint.ts), as one shell-quoted line, once the
 * database answers. Printing instead of spawning keeps the ERP as the container's process 1 with
 * the official command line, which is what `ps` and /proc/<pid>/cmdline show on the host.
 */
const version = process.env.ODOO_VERSION ?? process.env.FORJA_STANDIN_VERSION ?? '18.0';

function readOrNull(path: string | undefined): string | null {
  if (!path) return null;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** wait-for-psql.py: connect to the `postgres` database once a second until the timeout. */
async function waitForDatabase(wait: DatabaseWait): Promise<string | null> {
  const missing = (['host', 'port', 'user', 'password'] as const).filter((key) => wait[key] === undefined).map((key) => `db_${key}`);
  if (missing.length > 0) return `Missing required database parameters: ${missing.join(', ')}`;
  const deadline = Date.now() + wait.timeoutSeconds * 1000;
  let error = '';
  while (Date.now() < deadline) {
    const client = new pg.Client({ host: wait.host, port: Number(wait.port), user: wait.user, password: wait.password, database: 'postgres', connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.end();
      return null;
    } catch (failure) {
      error = (failure as Error).message;
      await client.end().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return `Database connection failure: ${error}`;
}

const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

const passwordFile = process.env.PASSWORD_FILE === undefined ? null : (readOrNull(process.env.PASSWORD_FILE) ?? '').replace(/\n+$/, '');
const plan = planEntrypoint(version, process.argv.slice(2), process.env, readOrNull(process.env.ODOO_RC), passwordFile);
const failure = plan.waitFor ? await waitForDatabase(plan.waitFor) : null;
if (failure) {
  process.stderr.write(`${failure}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(`${plan.exec.map(quoted).join(' ')}\n`);
}
