/**
 * Where a run's readiness report of one hop is kept in blob storage: the coverage step writes it
 * whatever it decides (a failed step records no facts), the API and the page read it. A file of
 * the run's own folder, not a folder of its own: the executor clears folders out of a run's folder
 * (tenantFolders.ts `reclaim`). Removed with the migration's other files (`migrations/<slug>/`).
 */
export const runBlobFolder = (slug: string, run: number): string => `migrations/${slug}/runs/${run}`;

const PREFIX = 'readiness-';

export const readinessKey = (slug: string, run: number, destination: string): string => `${runBlobFolder(slug, run)}/${PREFIX}${destination}.json`;

/** The destination version of a readiness blob's name, or null for another blob of the run. */
export function readinessDestination(name: string): string | null {
  const match = /^readiness-(\d{1,3}\.\d)\.json$/.exec(name);
  return match ? match[1]! : null;
}
