import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { MONITORING_USER } from '#shared/monitoring/monitoringSecret.ts';

/** Debian's Python (python3 is a tool package): its crypt module hashes with the system's libxcrypt. */
const PYTHON = '/usr/bin/python3';
/** The cost Prometheus' own documentation uses: every request pays it once (exporter-toolkit caches the result). */
const BCRYPT_COST = 10;

/**
 * A bcrypt hash of `password`. Forja has no bcrypt library yet, so Debian's Python computes it:
 * the password goes through stdin, never the command line other accounts may read in ps.
 */
export function bcryptHash(password: string): string {
  const script = `import crypt, sys\nprint(crypt.crypt(sys.stdin.read(), crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=${2 ** BCRYPT_COST})))`;
  // crypt is deprecated from Python 3.11 (removed in 3.13): its warning would only clutter Forja's output.
  let hash: string;
  try {
    hash = execFileSync(PYTHON, ['-W', 'ignore::DeprecationWarning', '-c', script], { input: password, encoding: 'utf8', env: {}, stdio: ['pipe', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    // No monitoring without its login: better a stopped start than metrics open to every account.
    throw new Error(`monitoring: cannot hash its secret with ${PYTHON} (apt-get install python3, or set FORJA_MONITORING=false): ${(error as Error).message}`);
  }
  if (!/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(hash)) throw new Error(`${PYTHON} gave no bcrypt hash (its crypt module or libcrypt lacks bcrypt)`);
  return hash;
}

export interface MonitoringWebFiles {
  /** `--web.config.file` of Prometheus and the PostgreSQL exporter (exporter-toolkit's format): the hash only. */
  webConfigFile: string;
  /** The plain secret, for Prometheus' scrapes (`basic_auth.password_file`). */
  passwordFile: string;
}

/**
 * Writes, at every start, the files through which Prometheus and the PostgreSQL exporter ask for
 * the monitoring secret and Prometheus sends it: 0600, owned by the account the tools run as.
 */
export function writeMonitoringWebFiles(dir: string, secret: string, account: { uid?: number; gid?: number }): MonitoringWebFiles {
  const files = { webConfigFile: join(dir, 'web-config.yml'), passwordFile: join(dir, 'scrape-password') };
  const contents: Array<[string, string]> = [
    [files.webConfigFile, stringify({ basic_auth_users: { [MONITORING_USER]: bcryptHash(secret) } })],
    [files.passwordFile, secret],
  ];
  for (const [path, text] of contents) {
    writeFileSync(path, text, { mode: 0o600 });
    // A file left by an earlier start keeps its mode through writeFileSync.
    chmodSync(path, 0o600);
    if (account.uid !== undefined && account.gid !== undefined) chownSync(path, account.uid, account.gid);
  }
  return files;
}
