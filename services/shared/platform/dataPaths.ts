import { join } from 'node:path';

/**
 * Where blobs live under FORJA_DATA_DIR. Paths derive from slugs and ids the domain validated
 * (slug: `[a-z0-9-]`, upload id: a UUID), never from raw user input; these refuse anything else.
 */
const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type LogSource = 'erp' | 'db';

function checked(value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value)) throw new Error(`not a valid ${what}: ${JSON.stringify(value)}`);
  return value;
}

/** The instance's own folder: code, filestore, logs. Removed when it is destroyed. */
export const instanceDir = (dataDir: string, slug: string): string => join(dataDir, 'instances', checked(slug, SLUG, 'instance slug'));

/** `erp`: what the ERP writes; `db`: what Forja did to its database (create, clone, restore, neutralize). */
export const instanceLogFile = (dataDir: string, slug: string, source: LogSource): string => join(instanceDir(dataDir, slug), 'logs', `${source}.log`);

/** An uploaded dump (`dump`) and optional filestore archive (`filestore`), waiting for the executor. */
export const uploadDir = (dataDir: string, uploadId: string): string => join(dataDir, 'uploads', checked(uploadId, UUID, 'upload id'));
