import { text } from 'node:stream/consumers';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import { readinessDestination, readinessKey, runBlobFolder } from '../domain/readinessKey.ts';

/** One module of a hop's report (executor: migration/readiness/moduleReadiness.ts writes them). */
export interface ReadinessModule {
  module: string;
  found: string;
  where: string | null;
  openupgrade: string | null;
  verdict: 'ok' | 'warning' | 'blocks';
  note: string;
}

export interface HopReadinessReport {
  origin: string;
  destination: string;
  counts: { ok: number; warning: number; blocks: number };
  modules: ReadinessModule[];
}

/** ReadinessOut (schemas/api/ReadinessOut.v1.json). */
export interface ReadinessOut {
  /** The run whose coverage pre-flight made the report, or null when none has yet. */
  run: number | null;
  hops: HopReadinessReport[];
  note: string;
}

/**
 * The readiness report of a migration: the hops' reports the most recent run that checked its
 * modules wrote (a resume reuses its failed run's coverage steps, so it looks further back).
 * `runs`: the migration's run numbers, newest first.
 */
export async function readinessOf(blobs: BlobStore, slug: string, runs: readonly number[]): Promise<ReadinessOut> {
  for (const run of runs) {
    const destinations = (await blobs.list(runBlobFolder(slug, run))).map(readinessDestination).filter((destination) => destination !== null);
    if (destinations.length === 0) continue;
    const hops = [];
    for (const destination of destinations.sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b))) {
      hops.push(JSON.parse(await text(await blobs.get(readinessKey(slug, run, destination)))) as HopReadinessReport);
    }
    return { run, hops, note: `made by run ${run}'s coverage pre-flight from the restored database and each hop's addons path` };
  }
  return { run: null, hops: [], note: 'no run has checked the modules yet: run the migration, and its coverage pre-flight makes the report' };
}
