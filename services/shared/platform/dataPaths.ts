import { join } from 'node:path';
import { instanceLogKey, instancePrefix, uploadKeys, type LogSource } from '../blobs/blobKeys.ts';

/**
 * Paths of blobs under FORJA_DATA_DIR, for the executor's same-machine writers (runtimes, tools
 * writing by path). They are the blob store's keys (`blobs/blobKeys.ts`) under that folder; web and
 * the control-plane go through the blob store instead.
 */
export type { LogSource };

/** The instance's own folder: code, filestore, logs. */
export const instanceDir = (dataDir: string, slug: string): string => join(dataDir, instancePrefix(slug));

/** `erp`: what the ERP writes; `db`: what Forja did to its database (create, clone, restore, neutralize). */
export const instanceLogFile = (dataDir: string, slug: string, source: LogSource): string => join(dataDir, instanceLogKey(slug, source));

/** An uploaded dump (`dump`) and optional filestore archive (`filestore`), waiting for the executor. */
export const uploadDir = (dataDir: string, uploadId: string): string => join(dataDir, uploadKeys(uploadId).prefix);
