/**
 * Where things live in the blob store. Keys derive from slugs and ids the domain validated
 * (slug: `[a-z0-9-]`, upload id: a UUID), never from raw user input; these refuse anything else.
 * The layout is the one FORJA_DATA_DIR has always had, so data written before the port still reads.
 */
const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `erp`: what the ERP writes; `db`: what Forja did to its database (create, clone, restore, neutralize). */
export type LogSource = 'erp' | 'db';
export const LOG_SOURCES: readonly LogSource[] = ['erp', 'db'];

function checked(value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value)) throw new Error(`not a valid ${what}: ${JSON.stringify(value)}`);
  return value;
}

/** The instance's folder: code, filestore, logs. Purging the instance deletes it. */
export const instancePrefix = (slug: string): string => `instances/${checked(slug, SLUG, 'instance slug')}`;

export function instanceLogKey(slug: string, source: LogSource): string {
  if (!LOG_SOURCES.includes(source)) throw new Error(`not a log source: ${JSON.stringify(source)}`);
  return `${instancePrefix(slug)}/logs/${source}.log`;
}

/** An uploaded dump and its optional filestore archive, waiting for the executor to restore them. */
export interface UploadKeys {
  /** The upload's folder: deleting it drops both files. */
  prefix: string;
  dump: string;
  filestore: string;
}

export function uploadKeys(uploadId: string): UploadKeys {
  const prefix = `uploads/${checked(uploadId, UUID, 'upload id')}`;
  return { prefix, dump: `${prefix}/dump`, filestore: `${prefix}/filestore` };
}

/** A caught message's id: when it came (sortable) and a random part, e.g. `20261128T164501123Z-9f2c1a7e`. */
const MAIL_ID = /^[0-9]{8}T[0-9]{9}Z-[0-9a-f]{8}$/;

/** The mail the catcher caught for an instance: its own folder, so one instance's mail is never listed with another's. */
export const instanceMailPrefix = (slug: string): string => `mail/${checked(slug, SLUG, 'instance slug')}`;

/** One caught message: the whole message as it came (`.eml`) and what its list shows (`.json`). */
export function caughtMailKeys(slug: string, id: string): { raw: string; summary: string } {
  const prefix = `${instanceMailPrefix(slug)}/${checked(id, MAIL_ID, 'mail id')}`;
  return { raw: `${prefix}.eml`, summary: `${prefix}.json` };
}

export const isMailId = (id: string): boolean => MAIL_ID.test(id);
