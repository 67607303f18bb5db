import { getMigration, type MigrationDetailRow } from '#projections/erpMigrations/migrationDetail.ts';
import { artifactById, artifactsNumbered, getRun, runArtifacts, type RunArtifact } from '#projections/erpMigrations/migrationRuns.ts';
import { artifactVersion } from '#services/instances/domain/artifactVersion.ts';
import type { WebContext } from '../context.ts';
import { CONTROL_CHARACTER, type InstanceFormInput } from './instanceForm.ts';

/** The backup or dump a new instance's database comes from, as the form shows it. */
export interface BackupView {
  migration: Pick<MigrationDetailRow, 'slug' | 'name' | 'flavor'>;
  run: number;
  artifact: Pick<RunArtifact, 'id' | 'kind' | 'name' | 'bytes' | 'sha256'>;
  /** The version of the database in it: what the instance runs. */
  erpVersion: string;
  /** The run archived its filestore too: the instance gets it. */
  withFilestore: boolean;
}

/** `from_backup` as typed: a positive whole number, 0 or empty for none; anything else is no artifact id. */
export function backupIdOf(typed: string): number | 'none' | 'invalid' {
  const value = typed.trim();
  if (value === '' || /^0+$/.test(value)) return 'none';
  return /^[0-9]{1,12}$/.test(value) ? Number(value) : 'invalid';
}

/** The artifact `id` of `migrationSlug`, or of the one migration that has an artifact of that id. */
async function artifactNamed(ctx: WebContext, id: number, migrationSlug: string): Promise<{ slug: string; artifact: RunArtifact } | string> {
  if (migrationSlug) {
    if (CONTROL_CHARACTER.test(migrationSlug) || !(await getMigration(ctx.readModel, migrationSlug))) return `there is no migration ${migrationSlug}: it may have been deleted`;
    const artifact = await artifactById(ctx.readModel, migrationSlug, id);
    return artifact ? { slug: migrationSlug, artifact } : `migration ${migrationSlug} has no artifact ${id}`;
  }
  const found = await artifactsNumbered(ctx.readModel, id);
  if (found.length === 1) return { slug: found[0]!.slug, artifact: found[0]! };
  return found.length === 0 ? `there is no migration artifact ${id}` : `several migrations have an artifact ${id}: open it from its migration’s page`;
}

/**
 * What `from_backup` (and `from_migration`) name, for the form to show and preload; a string says
 * why there is nothing to start from. The control-plane checks again when the form is sent.
 */
export async function backupNamed(ctx: WebContext, input: Pick<InstanceFormInput, 'from_backup' | 'from_migration'>): Promise<BackupView | string | undefined> {
  const id = backupIdOf(input.from_backup);
  if (id === 'none') return undefined;
  if (id === 'invalid') return 'not an artifact number';
  const named = await artifactNamed(ctx, id, input.from_migration.trim());
  if (typeof named === 'string') return named;
  const { slug, artifact } = named;
  const migration = await getMigration(ctx.readModel, slug);
  if (!migration) return `there is no migration ${slug}: it may have been deleted`;
  if (artifact.kind !== 'backup' && artifact.kind !== 'dump') return `${artifact.name} is a ${artifact.kind === 'filestore' ? 'filestore archive' : artifact.kind}, not a database: choose the run’s backup or dump`;
  const run = Math.floor(artifact.id / 1000);
  const runRow = await getRun(ctx.readModel, slug, run);
  const withFilestore = runRow ? (await runArtifacts(ctx.readModel, runRow)).some((one) => one.kind === 'filestore') : false;
  return { migration, run, artifact, erpVersion: artifactVersion(artifact, migration), withFilestore };
}

/** A new form preloaded from the backup: its database's version, the migration's edition, a name saying where it comes from. */
export function backupInput(input: InstanceFormInput, backup: BackupView): InstanceFormInput {
  return {
    ...input,
    from_migration: backup.migration.slug,
    erp_version: backup.erpVersion,
    edition: backup.migration.flavor,
    name: `${backup.migration.name} run ${backup.run} ${backup.artifact.kind}`.slice(0, 80),
  };
}
