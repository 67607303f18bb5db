import { artifactById, runArtifacts, type MigrationRunRow, type RunArtifact } from '#projections/erpMigrations/migrationRuns.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { assertBlobKey } from '#shared/blobs/blobStore.ts';

/** An artifact as the migration page lists it: the read model's, with its run's number. */
export type ArtifactView = RunArtifact & { run: number };

/** The key of a run's log, as the executor writes it (FORJA_DATA_DIR/migrations/<slug>/runs/<n>/run.log). */
export const runLogKey = (slug: string, run: number): string => assertBlobKey(`migrations/${slug}/runs/${run}/run.log`);

/** The artifact ids number runs by the thousand (projections/erpMigrations/migrationRuns.ts). */
const runOf = (artifact: RunArtifact) => Math.floor(artifact.id / 1000);

/**
 * Only a file in the migration's own folder is served: the key comes from a step's facts, and a
 * page must never stream another migration's (or anything else's) blob.
 */
function ownFile(slug: string, artifact: RunArtifact): boolean {
  if (!artifact.key.startsWith(`migrations/${slug}/`)) return false;
  try {
    assertBlobKey(artifact.key);
    return true;
  } catch {
    return false;
  }
}

/** Every artifact of the migration's runs, oldest run first, each run's in plan order. */
export async function artifactsOf(readModel: ReadModel, slug: string, runs: readonly MigrationRunRow[]): Promise<ArtifactView[]> {
  const oldestFirst = [...runs].sort((a, b) => a.number - b.number);
  const perRun = await Promise.all(oldestFirst.map((run) => runArtifacts(readModel, run)));
  return perRun.flat().flatMap((artifact) => (ownFile(slug, artifact) ? [{ ...artifact, run: runOf(artifact) }] : []));
}

/** The artifact `id` names, or undefined when there is none (no such run, step or file). */
export async function findArtifact(readModel: ReadModel, slug: string, id: number): Promise<ArtifactView | undefined> {
  const artifact = await artifactById(readModel, slug, id);
  return artifact && ownFile(slug, artifact) ? { ...artifact, run: runOf(artifact) } : undefined;
}
