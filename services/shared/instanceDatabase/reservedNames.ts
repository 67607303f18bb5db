import { createHash } from 'node:crypto';

/**
 * The names Forja derives for what is not a user's instance: a migration's working database, its
 * checkpoint, the copy a snapshot is built under, the runtime name of a migration's ERP runs and
 * a migration's working instances. Each kind has a form no other kind can produce, whatever the
 * slugs (issue 24: a migration once restored over the database of instance `mig-acme` and its
 * stop destroyed instance `acme-r1` of another project):
 *
 * - instance databases are `forja_<slug>` (databaseName.ts): the database kinds below start
 *   `forjamig_`, `forjack_` and `forjatmp_`, which differ from `forja_` and from each other at
 *   their sixth character, and a hash keeps a long name's head, so no kind reaches another's;
 * - instance slugs are `[a-z0-9]+(-[a-z0-9]+)*`, without `_`: a migration's runtime name
 *   `mig_<slug>` is never an instance's;
 * - working instances are instances, so their slug must be one: `migrun-<migration>-<run>`, a
 *   form the control-plane refuses for instances a user creates (`reservedInstanceSlug`);
 * - the conformance check's throwaway instance is an instance too: `erpcheck-<random>`, refused
 *   likewise, so its folder, OS account and database (`forja_erpcheck_…`) are never a user's.
 */

const MAX_IDENTIFIER_BYTES = 63;
/** Runtime names end up in container and network names (`forja-<name>-oneshot`) and host names. */
const MAX_RUNTIME_NAME = 60;

export const WORKING_DATABASE_PREFIX = 'forjamig_';
export const CHECKPOINT_DATABASE_PREFIX = 'forjack_';
export const ASIDE_DATABASE_PREFIX = 'forjatmp_';
export const MIGRATION_RUNTIME_PREFIX = 'mig_';
export const WORKING_INSTANCE_PREFIX = 'migrun-';
/** The throwaway instance of an `npm run erp:check` run (scripts/erpCheck.ts): its folder, account and database. */
export const ERP_CHECK_INSTANCE_PREFIX = 'erpcheck-';
/** Before issue 24 a migration's working database was `forja_mig_<slug>`: instance `mig-<slug>`'s. Old migrations keep that name. */
export const LEGACY_WORKING_DATABASE_PREFIX = 'forja_mig_';

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 8);

/** `prefix` + `body`, at most `max` characters: a longer body keeps its head and ends in `_` and a hash of the whole body. */
function fitted(prefix: string, body: string, max = MAX_IDENTIFIER_BYTES): string {
  const whole = `${prefix}${body}`;
  if (whole.length <= max) return whole;
  return `${prefix}${body.slice(0, max - prefix.length - 9)}_${hashOf(body)}`;
}

const underscored = (slug: string): string => slug.replaceAll('-', '_');

/** The working database of a migration created since issue 24 (recorded in its MigrationCreated). */
export const workingDatabaseName = (migrationSlug: string): string => fitted(WORKING_DATABASE_PREFIX, underscored(migrationSlug));

/** The checkpoint (snapshot) of that working database (recorded beside it). */
export const checkpointDatabaseName = (migrationSlug: string): string => fitted(CHECKPOINT_DATABASE_PREFIX, underscored(migrationSlug));

/** The database a snapshot is built under before it is renamed over `database`. */
export const asideDatabaseName = (database: string): string => fitted(ASIDE_DATABASE_PREFIX, database);

/** What the runtime calls a migration's ERP runs (its one-shot container, network, lock). */
export const migrationRuntimeName = (migrationSlug: string): string => fitted(MIGRATION_RUNTIME_PREFIX, migrationSlug, MAX_RUNTIME_NAME);

/**
 * The working instance of run `run` of a migration: `migrun-<migration>-<run>`, a valid instance
 * slug. A long migration slug keeps its head and gets a hash of the whole slug, so two migrations
 * sharing a head never share a working instance.
 */
export function workingInstanceSlug(migrationSlug: string, run: number): string {
  const tail = `-${run}`;
  const whole = `${WORKING_INSTANCE_PREFIX}${migrationSlug}${tail}`;
  if (whole.length <= MAX_RUNTIME_NAME) return whole;
  const head = migrationSlug.slice(0, MAX_RUNTIME_NAME - WORKING_INSTANCE_PREFIX.length - tail.length - 9).replace(/-+$/, '');
  return `${WORKING_INSTANCE_PREFIX}${head}-${hashOf(migrationSlug)}${tail}`;
}

/** Slugs whose instance database or role is another kind's name, and why. */
const RESERVED: readonly { test: (slug: string) => boolean; why: string }[] = [
  { test: (slug) => slug.startsWith(WORKING_INSTANCE_PREFIX), why: `slugs starting with '${WORKING_INSTANCE_PREFIX}' are reserved for the working instances of migrations` },
  { test: (slug) => slug.startsWith(ERP_CHECK_INSTANCE_PREFIX), why: `slugs starting with '${ERP_CHECK_INSTANCE_PREFIX}' are reserved for the throwaway instances of the ERP conformance check (npm run erp:check)` },
  { test: (slug) => slug.startsWith('mig-'), why: `slugs starting with 'mig-' are reserved: their databases (${LEGACY_WORKING_DATABASE_PREFIX}…) are the working databases of older migrations` },
  { test: (slug) => slug === 'monitoring', why: `the slug 'monitoring' is reserved: its database role (forja_monitoring) is the monitoring exporter's` },
];

/** Why a user may not create an instance with this slug, or null when it may. Existing instances keep theirs. */
export function reservedInstanceSlug(slug: string): string | null {
  return RESERVED.find((rule) => rule.test(slug))?.why ?? null;
}
