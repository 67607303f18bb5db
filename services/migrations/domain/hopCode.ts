/**
 * Where a migration's customer code lives for each hop (issue 26): a Forja project (its
 * repository and SSH keys) and, per destination version, the branch (and optionally the commit)
 * holding that version of the code. An `erp` step of a hop then runs with that checkout's module
 * folders on its addons path, as an instance of that version would.
 */
export interface HopCode {
  branch: string;
  /** A pinned commit on that branch; null: the branch's head when the run first checks it out. */
  commit: string | null;
}

export type HopCodes = Readonly<Record<string, HopCode>>;

const majorOf = (version: string) => Number.parseInt(version, 10);

/** The versions a route's hops reach, in order: 16.0 → 18.0 gives 17.0 and 18.0. */
export function hopDestinations(origin: string, destination: string): string[] {
  const versions: string[] = [];
  for (let major = majorOf(origin) + 1; major <= majorOf(destination); major++) versions.push(`${major}.0`);
  return versions;
}

/** Why this project and code cannot go with the route, naming the field; null when they can. */
export function hopCodeProblem(route: { origin: string; destination: string }, project: string | null, code: HopCodes): { field: 'project' | 'code'; message: string } | null {
  const hops = hopDestinations(route.origin, route.destination);
  const stray = Object.keys(code).filter((version) => !hops.includes(version));
  if (stray.length > 0) {
    return { field: 'code', message: `code names ${stray.join(', ')}, which is not a version this migration reaches (${route.origin} → ${route.destination} reaches ${hops.join(', ')})` };
  }
  if (Object.keys(code).length > 0 && project === null) return { field: 'project', message: 'code per version needs the project whose repository holds it' };
  return null;
}
