import { compareVersions, majorOf } from './version.ts';

/** What an `-u`/`--update` run does about module versions older than the server's. */
export type UpgradeDecision =
  /** Nothing older than the server: plain install and update. */
  | { kind: 'none' }
  | { kind: 'migrate'; from: string; to: string }
  /** The run goes on, but no installed module changes version; said at `level` so a post-check has a line to point at. */
  | { kind: 'not-migrated'; level: 'WARNING' | 'ERROR'; message: string }
  /** The run stops before changing anything (exit 1). */
  | { kind: 'refused'; message: string };

export interface UpgradeInputs {
  database: string;
  /** The stand-in's series (FORJA_STANDIN_VERSION), undefined when it plays no version. */
  server: string | undefined;
  /** The series of the installed modules this run updates (unversioned ones left out). */
  series: readonly string[];
  updating: boolean;
  upgradePath: readonly string[];
  load: readonly string[];
}

export const FRAMEWORK = 'openupgrade_framework';

/**
 * OpenUpgrade's rules, made visible: one major version per run ("skipping versions is not
 * supported"), scripts from `--upgrade-path`, and `openupgrade_framework` in `--load`. Where the real
 * ERP silently migrates nothing (no `-u`, no upgrade path), the stand-in says so in its log.
 */
export function decideUpgrade(input: UpgradeInputs): UpgradeDecision {
  const { database, server, upgradePath, load } = input;
  if (!input.updating) {
    return upgradePath.length > 0 ? { kind: 'not-migrated', level: 'WARNING', message: '--upgrade-path given without -u/--update: no module migrated' } : { kind: 'none' };
  }
  if (server === undefined) {
    return upgradePath.length > 0 ? { kind: 'refused', message: 'the ERP stand-in plays no ERP version (FORJA_STANDIN_VERSION is not set), so it cannot migrate' } : { kind: 'none' };
  }
  const sorted = [...new Set(input.series)].sort(compareVersions);
  const oldest = sorted[0];
  const newest = sorted.at(-1);
  if (newest !== undefined && compareVersions(newest, server) > 0) {
    return { kind: 'refused', message: `database ${database} has modules at ${newest}, newer than this server (${server})` };
  }
  if (oldest === undefined || oldest === server) return { kind: 'none' };
  if (majorOf(oldest) !== majorOf(server) - 1) {
    return { kind: 'refused', message: `cannot migrate database ${database} from ${oldest} to ${server}: skipping versions is not supported, migrate one major version at a time` };
  }
  if (upgradePath.length === 0) {
    return { kind: 'not-migrated', level: 'WARNING', message: `database ${database} has modules at ${oldest} and this server is ${server}, but no --upgrade-path was given: no module migrated` };
  }
  if (!load.includes(FRAMEWORK)) {
    return { kind: 'not-migrated', level: 'ERROR', message: `Couldn't load module ${FRAMEWORK} (not in --load=${load.join(',')}): no module migrated` };
  }
  return { kind: 'migrate', from: oldest, to: server };
}
