import { ConfigError } from '../config/config.ts';
import { gitAccessFrom } from '../git/gitAccess.ts';
import type { PullAllowList } from './pullUrl.ts';

/** What a migration's `pull_url` download may reach and how large it may be. */
export interface PullSettings {
  allow: PullAllowList;
  maxBytes: number;
}

/** 50 GiB: the filestore cap (FORJA_FILESTORE_MAX_BYTES), so a pulled archive is never refused where an uploaded one would expand. */
export const DEFAULT_PULL_MAX_BYTES = 53_687_091_200;


/**
 * The settings as the environment (or a settings loader) gives them. Throws a ConfigError naming
 * the setting for a malformed range or size. Allow-list entries are normalized the way
 * FORJA_GIT_ALLOW_HOSTS's are (gitAccessFrom), so both lists match hosts alike.
 */
export function pullSettingsFrom(values: { FORJA_PULL_ALLOW_HOSTS?: string | undefined; FORJA_PULL_MAX_BYTES?: number | string | undefined }): PullSettings {
  let allow: PullAllowList;
  try {
    allow = gitAccessFrom({ FORJA_GIT_ALLOW_HOSTS: values.FORJA_PULL_ALLOW_HOSTS }).allowHosts;
  } catch (error) {
    throw new ConfigError((error as Error).message.replace('FORJA_GIT_ALLOW_HOSTS', 'FORJA_PULL_ALLOW_HOSTS'));
  }
  const raw = typeof values.FORJA_PULL_MAX_BYTES === 'string' ? values.FORJA_PULL_MAX_BYTES.trim() : values.FORJA_PULL_MAX_BYTES;
  if (raw === undefined || raw === '') return { allow, maxBytes: DEFAULT_PULL_MAX_BYTES };
  const maxBytes = typeof raw === 'number' ? raw : /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new ConfigError(`configuration: FORJA_PULL_MAX_BYTES must be a whole number of bytes, at least 1 (got ${JSON.stringify(values.FORJA_PULL_MAX_BYTES)})`);
  }
  return { allow, maxBytes };
}
