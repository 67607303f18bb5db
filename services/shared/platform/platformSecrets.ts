import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';

export interface PlatformSecrets {
  masterKey: Buffer;
  webhookSecret: string;
  serviceToken: string;
}

/**
 * The three platform secrets from the environment, or — for `npm start` on one machine — from
 * `FORJA_DATA_DIR/local-secrets.json`, generated once with mode 0600. A deployment over several
 * machines must set them, or each would generate its own and they would not agree.
 */
export function resolvePlatformSecrets(config: Config): PlatformSecrets {
  const needsLocal = !config.FORJA_MASTER_KEY || !config.FORJA_WEBHOOK_SECRET || !config.FORJA_SERVICE_TOKEN;
  const local = needsLocal ? localSecrets(config.FORJA_DATA_DIR) : undefined;
  return {
    masterKey: Buffer.from(config.FORJA_MASTER_KEY ?? local!.masterKey, 'base64'),
    webhookSecret: config.FORJA_WEBHOOK_SECRET ?? local!.webhookSecret,
    serviceToken: config.FORJA_SERVICE_TOKEN ?? local!.serviceToken,
  };
}

interface LocalSecretsFile {
  masterKey: string;
  webhookSecret: string;
  serviceToken: string;
}

function localSecrets(dataDir: string): LocalSecretsFile {
  const path = join(dataDir, 'local-secrets.json');
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as LocalSecretsFile;
  const fresh: LocalSecretsFile = {
    masterKey: randomBytes(32).toString('base64'),
    webhookSecret: randomBytes(32).toString('base64url'),
    serviceToken: randomBytes(32).toString('base64url'),
  };
  mkdirSync(dataDir, { recursive: true });
  // 'wx': when two processes start together, the second one reads the first one's file.
  try {
    writeFileSync(path, JSON.stringify(fresh), { mode: 0o600, flag: 'wx' });
  } catch {
    return JSON.parse(readFileSync(path, 'utf8')) as LocalSecretsFile;
  }
  return fresh;
}
