import { compareVersions, majorOf } from './version.ts';

/** What an `-u`/`--update` run does about module versions older than the server's. */
export type UpgradeDecision =
  /** Nothing older than the server: plain install and update. */
  | { kind: 'none' }
  | { kind: 'migrate'; from: string; to: string; target?: string }
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
  /** OPENUPGRADE_TARGET_VERSION: the chain's last version, which OpenUpgrade reads from the environment. */
  targetVersion?: string | undefined;
  /** Whether a module is on the addons path (a `--load` module must be). */
  onPath?: (name: string) => boolean;
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
  // odoo/service/server.py (load_server_wide_modules) only logs a module it cannot import and goes on;
  // OpenUpgrade would then migrate without its framework's patches. Stricter here, on purpose: refused.
  const absent = load.filter((name) => !['base', 'web'].includes(name) && input.onPath !== undefined && !input.onPath(name));
  if (absent.length > 0) {
    return { kind: 'refused', message: `Failed to load server-wide module \`${absent[0]}\`: it is not on the addons path (--load=${load.join(',')}): no module migrated` };
  }
  if (!load.includes(FRAMEWORK)) {
    return { kind: 'not-migrated', level: 'ERROR', message: `Couldn't load module ${FRAMEWORK} (not in --load=${load.join(',')}): no module migrated` };
  }
  if (input.targetVersion !== undefined && compareVersions(input.targetVersion, server) < 0) {
    return { kind: 'refused', message: `OPENUPGRADE_TARGET_VERSION=${input.targetVersion} is older than this server (${server}): the chain's last version cannot come before this hop` };
  }
  return { kind: 'migrate', from: oldest, to: server, ...(input.targetVersion !== undefined ? { target: input.targetVersion } : {}) };
}
