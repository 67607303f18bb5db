import { getMigration, type MigrationDetailRow } from '#projections/erpMigrations/migrationDetail.ts';
import { artifactById, artifactsNumbered, getRun, runArtifacts, type RunArtifact } from '#projections/erpMigrations/migrationRuns.ts';
import type { ReadModel } from '#projections/readModel.ts';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { artifactVersion } from '#services/instances/domain/artifactVersion.ts';
import { ERP_VERSIONS, type ErpVersion, type InstanceSource } from '#services/instances/domain/instance.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream, type Flavor } from '#services/migrations/domain/migration.ts';
import { InstanceInputError } from './instanceInputError.ts';

/** A backup or dump a new instance starts from, with what it tells about the instance. */
export interface BackupSource {
  source: Extract<InstanceSource, { kind: 'artifact' }>;
  /** The version of the database in the dump: the version the instance must run. */
  erpVersion: ErpVersion;
  edition: Flavor;
  migration: MigrationDetailRow;
  artifact: RunArtifact;
}

const refuse = (message: string): never => {
  throw new InstanceInputError('from_backup', message);
};

/** Words for an artifact kind that is no database. */
const NOT_A_DATABASE: Record<string, string> = { filestore: 'a filestore archive', report: 'a report' };

/**
 * Resolves `from_backup` (an artifact id, unique within its migration only) to an instance
 * source, through the read model; `migrationSlug` says whose artifact, and may be left out when a
 * single migration has an artifact of that id. Every refusal is an InstanceInputError naming
 * `from_backup`.
 */
export function backupSources(readModel: ReadModel, store: EventStore, blobs: BlobStore) {
  async function migrationNamed(slug: string): Promise<MigrationDetailRow> {
    const migration = await getMigration(readModel, slug);
    if (migration) return migration;
    const { state } = await aggregateStream(store, migrationDecider, migrationStream(slug));
    if (state.status !== 'none' && state.deleted) return refuse(`migration ${slug} was deleted, and its backups and dumps with it`);
    return refuse(`there is no migration ${slug}`);
  }

  async function artifactOf(id: number, migrationSlug: string | undefined): Promise<{ migration: MigrationDetailRow; artifact: RunArtifact }> {
    if (migrationSlug) {
      const migration = await migrationNamed(migrationSlug);
      const artifact = await artifactById(readModel, migration.slug, id);
      if (!artifact) return refuse(`migration ${migration.slug} has no artifact ${id} (stopping a migration drops its runs and their artifacts)`);
      return { migration, artifact };
    }
    const found = await artifactsNumbered(readModel, id);
    if (found.length === 0) return refuse(`there is no migration artifact ${id}: its migration may have been stopped or deleted`);
    if (found.length > 1) return refuse(`migrations ${found.map((one) => one.slug).join(', ')} each have an artifact ${id}: say which with from_migration`);
    return { migration: await migrationNamed(found[0]!.slug), artifact: found[0]! };
  }

  return async function resolve(id: number, migrationSlug?: string): Promise<BackupSource> {
    const { migration, artifact } = await artifactOf(id, migrationSlug);
    const where = `artifact ${id} of migration ${migration.slug}`;
    if (artifact.kind !== 'backup' && artifact.kind !== 'dump') return refuse(`${where} is ${NOT_A_DATABASE[artifact.kind] ?? `a ${artifact.kind}`}, not a database: choose the run's backup or dump`);
    if (!artifact.key.startsWith(`migrations/${migration.slug}/`) || !(await blobs.stat(artifact.key))) return refuse(`the file of ${where} (${artifact.name}) is no longer stored`);
    const version = artifactVersion(artifact, migration);
    if (!(ERP_VERSIONS as readonly string[]).includes(version)) return refuse(`the database in ${where} is on version ${version}, which instances cannot run (${ERP_VERSIONS.join(', ')})`);
    const run = Math.floor(id / 1000);
    const runRow = await getRun(readModel, migration.slug, run);
    const filestore = runRow ? (await runArtifacts(readModel, runRow)).find((one) => one.kind === 'filestore' && one.key.startsWith(`migrations/${migration.slug}/`)) : undefined;
    const filestoreKey = filestore && (await blobs.stat(filestore.key)) ? filestore.key : null;
    return {
      source: { kind: 'artifact', artifactId: id, migration: migration.slug, run, artifactKind: artifact.kind, blobKey: artifact.key, filestoreKey },
      erpVersion: version as ErpVersion,
      edition: migration.flavor,
      migration,
      artifact,
    };
  };
}
