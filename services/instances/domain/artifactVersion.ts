/**
 * The ERP version of the database in a migration's backup or dump: what the step that made it
 * recorded, else (artifacts made before it was recorded) the migration's route: a backup is taken
 * before the upgrade, a dump after.
 */
export function artifactVersion(artifact: { kind: string; erp_version: string | null }, migration: { origin: string; destination: string }): string {
  return artifact.erp_version ?? (artifact.kind === 'backup' ? migration.origin : migration.destination);
}
