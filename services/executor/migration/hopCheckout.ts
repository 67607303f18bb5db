import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { writeFileBeneath } from '#shared/fs/beneath.ts';
import type { SystemUser } from '#shared/local/systemUser.ts';
import type { HopCode } from '#services/migrations/domain/hopCode.ts';
import type { LiveMigration } from '#services/migrations/domain/migration.ts';
import { projectDecider } from '#services/projects/domain/project.decider.ts';
import { projectStream } from '#services/projects/domain/project.ts';
import type { JobBinding, SourceControl } from '../jobs/stepEnvironment.ts';

/**
 * The customer's code of one hop (hopCode.ts): the migration's project's repository at the
 * branch (or pinned commit) named for that destination version, checked out under the migration's
 * `work/code/<version>`. Once per migration until it is stopped (which removes `work/`): a resume,
 * or a later hop of the same run, finds its record (`work/code/.<version>.json`) and reuses it
 * without asking git, so a resume runs the code the failed run ran.
 *
 *   work/code/          root, group of the migration's account, 0750: the ERP reads it, writes nothing
 *   work/code/<version> the checkout, root's
 */
export interface HopCheckoutTools {
  store: EventStore;
  source: (log: Writable, job: JobBinding, project: string) => SourceControl;
}

/** What a checkout's record says. */
interface Checked {
  repo: string;
  branch: string;
  commit: string;
}

export const hopCodeRoot = (migrationRoot: string) => join(migrationRoot, 'work', 'code');
const recordOf = (migrationRoot: string, version: string) => join(hopCodeRoot(migrationRoot), `.${version}.json`);

/** The checkout of `version`'s code when this migration has one ready, else null. */
export function readyHopCheckout(migration: LiveMigration, migrationRoot: string, version: string): string | null {
  const wanted = migration.code?.[version];
  if (!wanted || !migration.project) return null;
  const checked = readRecord(migrationRoot, version);
  return checked && matches(checked, wanted) ? join(hopCodeRoot(migrationRoot), version) : null;
}

function readRecord(migrationRoot: string, version: string): Checked | null {
  try {
    return JSON.parse(readFileSync(recordOf(migrationRoot, version), 'utf8')) as Checked;
  } catch {
    return null;
  }
}

const matches = (checked: Checked, wanted: HopCode) => checked.branch === wanted.branch && (wanted.commit === null || wanted.commit === checked.commit);

/**
 * Checks out `version`'s code unless a matching checkout is ready; says which in the run's log.
 * No code named for that version: nothing (the hop runs with the standard addons only).
 */
export async function ensureHopCheckout(
  tools: HopCheckoutTools,
  request: { migration: LiveMigration; migrationRoot: string; version: string; account: SystemUser | null; job: JobBinding; log: (line: string) => Promise<void>; toolLog: () => Writable },
): Promise<string | null> {
  const { migration, migrationRoot, version } = request;
  const wanted = migration.code?.[version];
  if (!wanted || !migration.project) return null;
  const dir = join(hopCodeRoot(migrationRoot), version);
  const checked = readRecord(migrationRoot, version);
  if (checked && matches(checked, wanted) && existsSync(dir)) {
    await request.log(`code for ${version}: reusing the checkout of ${migration.project}'s branch ${checked.branch} at ${checked.commit.slice(0, 12)}`);
    return dir;
  }
  const { state } = await aggregateStream(tools.store, projectDecider, projectStream(migration.project));
  if (state.status !== 'live' || state.gitRepo === null) throw new Error(`code for ${version}: project ${migration.project} ${state.status !== 'live' ? 'no longer exists' : 'has no repository'}`);
  const repo = state.gitRepo;
  const root = hopCodeRoot(migrationRoot);
  mkdirSync(root, { recursive: true, mode: 0o750 });
  chmodSync(root, 0o750);
  if (request.account) chownSync(root, 0, request.account.gid);
  rmSync(recordOf(migrationRoot, version), { force: true });
  rmSync(dir, { recursive: true, force: true });
  const out = request.toolLog();
  try {
    const source = tools.source(out, request.job, migration.project);
    const commit = wanted.commit ?? (await source.resolveBranchHead(repo, wanted.branch));
    await request.log(`code for ${version}: checking out ${migration.project}'s branch ${wanted.branch} at ${commit.slice(0, 12)}, with its submodules`);
    await source.checkout(repo, wanted.branch, commit, dir);
    writeFileBeneath(root, `.${version}.json`, `${JSON.stringify({ repo, branch: wanted.branch, commit } satisfies Checked)}\n`, { mode: 0o640 });
  } finally {
    out.end();
  }
  return dir;
}
