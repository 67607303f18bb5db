import bcrypt from 'bcryptjs';
import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { MONITORING_USER } from '#shared/monitoring/monitoringSecret.ts';

/** The cost Prometheus' own documentation uses: every request pays it once (exporter-toolkit caches the result). */
const BCRYPT_COST = 10;

/** A bcrypt hash of `password`, as exporter-toolkit's basic_auth_users takes it (bcryptjs: pure JavaScript, nothing to build). */
export function bcryptHash(password: string): string {
  return bcrypt.hashSync(password, BCRYPT_COST);
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
