/**
 * What an ERP backup's `manifest.json` says, as far as Forja uses it. The ERP's database manager
 * writes `odoo_dump`, `db_name`, `version` (`16.0`, `16.0+e`, `saas~17.1`), `version_info`
 * (`[16, 0, 0, "final", 0, ""]`), `major_version` (`16.0`), `pg_version` and `modules`
 * (name → installed version); older ones write fewer of them.
 */
export interface BackupManifest {
  /** The ERP series the database belongs to (`16.0`, `saas~17.1`), or undefined when the manifest does not say. */
  series: string | undefined;
  /** The full version as written (`16.0+e-20240101`), for the log. */
  version: string | undefined;
  databaseName: string | undefined;
  pgVersion: string | undefined;
  modules: number | undefined;
}

/** Refused past this size: the manifest is read into memory, and a real one (a few hundred modules) is tens of kilobytes. */
export const MANIFEST_MAX_BYTES = 16 * 2 ** 20;

/** The manifest's text, parsed; throws in plain words when it is not a JSON object. */
export function parseBackupManifest(text: string): BackupManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`its manifest.json is not valid JSON (${(error as Error).message}): the backup is damaged or was not made by the ERP`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('its manifest.json is not a JSON object: the backup is damaged or was not made by the ERP');
  const fields = parsed as Record<string, unknown>;
  const text_ = (name: string) => (typeof fields[name] === 'string' && fields[name].trim() !== '' ? fields[name].trim() : undefined);
  const modules = fields['modules'];
  return {
    series: seriesOf(fields),
    version: text_('version'),
    databaseName: text_('db_name'),
    pgVersion: text_('pg_version'),
    modules: typeof modules === 'object' && modules !== null ? Object.keys(modules).length : undefined,
  };
}

/** `major_version` first; else the first two parts of `version_info`; else the start of `version` (`16.0+e` → `16.0`). */
function seriesOf(fields: Record<string, unknown>): string | undefined {
  const major = fields['major_version'];
  if (typeof major === 'string' && major.trim() !== '') return major.trim();
  const info = fields['version_info'];
  if (Array.isArray(info) && (typeof info[0] === 'number' || typeof info[0] === 'string') && typeof info[1] === 'number') return `${info[0]}.${info[1]}`;
  const version = fields['version'];
  if (typeof version !== 'string') return undefined;
  return /^((?:saas~)?\d+\.\d+)/.exec(version.trim())?.[1];
}

/**
 * Why the backup cannot start this migration, or undefined: a series other than the migration's
 * origin (the upgrade scripts of one hop only know the version before it).
 */
export function manifestMismatch(manifest: BackupManifest, origin: string): string | undefined {
  if (manifest.series === undefined || manifest.series === origin) return undefined;
  const written = manifest.version !== undefined && manifest.version !== manifest.series ? ` (version ${manifest.version})` : '';
  return (
    `the backup is of a ${manifest.series} database${written}, but this migration starts from ${origin}: ` +
    `create a migration from ${manifest.series}, or give it a backup of the ${origin} database`
  );
}

/** One line for the run's log. */
export function describeManifest(manifest: BackupManifest): string {
  const parts = [
    manifest.series === undefined ? 'no ERP version (not checked against the origin)' : `ERP ${manifest.version ?? manifest.series}`,
    manifest.databaseName === undefined ? undefined : `database ${manifest.databaseName}`,
    manifest.pgVersion === undefined ? undefined : `PostgreSQL ${manifest.pgVersion}`,
    manifest.modules === undefined ? undefined : `${manifest.modules} installed module(s)`,
  ];
  return parts.filter((part) => part !== undefined).join(', ');
}
