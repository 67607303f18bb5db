import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { assertBlobKey } from '#shared/blobs/blobStore.ts';
import type { MigrationStepContext } from '../migrationStepContext.ts';

export type ArtifactKind = 'dump' | 'backup' | 'filestore' | 'report';

/** What a run produced for the operator to download: the facts of the step that made it. */
export interface Artifact {
  kind: ArtifactKind;
  /** The file's name (`<step id>.dump`). */
  name: string;
  /** Where it is in blob storage: `migrations/<slug>/runs/<n>/<name>`. */
  key: string;
  bytes: number;
  sha256: string;
  /** A backup's or dump's database version (`17.0`), from its `base` module: what an instance made from it runs. */
  erpVersion?: string;
}

/**
 * Where a step of this run writes its artifact before it is stored: `paths.run/scratch/<step id><extension>`.
 * Not beside the stored artifacts: the blob store keeps them under the same run folder, and the
 * local file is deleted once stored.
 */
export async function artifactFile(context: MigrationStepContext, extension: string): Promise<string> {
  const scratch = join(context.paths.run, 'scratch');
  await mkdir(scratch, { recursive: true });
  return join(scratch, `${context.step.id}${extension}`);
}

/**
 * Stores `file` as an artifact of the run (hashed as it streams), then deletes the local file,
 * stored or not: a retry makes it again.
 */
export async function storeArtifact(context: MigrationStepContext, kind: ArtifactKind, file: string): Promise<Artifact> {
  const name = basename(file);
  const key = assertBlobKey(`migrations/${context.migration.slug}/runs/${context.run.number}/${name}`);
  const hash = createHash('sha256');
  let bytes = 0;
  async function* hashed(): AsyncIterable<Uint8Array> {
    for await (const chunk of createReadStream(file, { signal: context.signal }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
      yield chunk;
    }
  }
  try {
    await context.blobs.put(key, hashed());
  } finally {
    await rm(file, { force: true });
  }
  const artifact: Artifact = { kind, name, key, bytes, sha256: hash.digest('hex') };
  await context.log(`stored ${kind} artifact ${name}: ${bytes} bytes, sha256 ${artifact.sha256}`);
  return artifact;
}
