import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { SystemUser } from './systemUser.ts';

/**
 * One OS account per tenant: everything an instance runs (its ERP, one-shot runs, shell, notebook
 * and code editor) runs as that instance's own account, and a migration's ERP runs as the
 * migration's, so one customer's code can neither read another's files nor another's process
 * environment (/proc/<pid>/environ is readable by the same uid only) and its database password.
 *
 * The account's name derives from the tenant's slug, so every process (executor, web) finds the
 * same one without asking anyone; the system allocates its uid once, from FORJA_TENANT_UID_RANGE,
 * and /etc/passwd records it. Only root creates accounts; run as anyone else Forja has no
 * tenant accounts (see `tenantIsolation`).
 */
export type TenantKind = 'instance' | 'migration';

/** uids (and gids) for tenant accounts: `60000-64999`, the setting FORJA_TENANT_UID_RANGE. */
export interface UidRange {
  min: number;
  max: number;
}

export const DEFAULT_UID_RANGE: UidRange = { min: 60000, max: 64999 };

const PREFIX: Record<TenantKind, string> = { instance: 'fi-', migration: 'fm-' };
const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Linux's useradd takes names up to 32 characters. */
const MAX_NAME = 32;

/**
 * The account name of a tenant: `fi-<slug>` for an instance, `fm-<slug>` for a migration. A slug
 * too long for 32 characters keeps its head and ends in a hash of the whole slug, so two long
 * slugs never share an account.
 */
export function tenantAccountName(kind: TenantKind, slug: string): string {
  if (!SLUG.test(slug)) throw new Error(`not a slug: ${JSON.stringify(slug)}`);
  const whole = `${PREFIX[kind]}${slug}`;
  if (whole.length <= MAX_NAME) return whole;
  const hash = createHash('sha256').update(slug).digest('hex').slice(0, 8);
  return `${whole.slice(0, MAX_NAME - hash.length - 1).replace(/-+$/, '')}-${hash}`;
}

/** `60000-64999` as a range; refuses what is not one. */
export function parseUidRange(text: string): UidRange {
  const match = /^(\d+)-(\d+)$/.exec(text.trim());
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (!match || min < 1000 || max < min || max >= 65534) throw new Error(`not a uid range: ${JSON.stringify(text)} (two numbers from 1000 to 65533, the first not above the second: 60000-64999)`);
  return { min, max };
}

const known = new Map<string, SystemUser>();

function lookUp(name: string): SystemUser | null {
  const found = known.get(name);
  if (found) return found;
  const result = spawnSync('getent', ['passwd', name], { encoding: 'utf8' });
  const fields = result.status === 0 ? result.stdout.trim().split(':') : [];
  if (fields.length < 4) return null;
  const user = { name, uid: Number(fields[2]), gid: Number(fields[3]) };
  known.set(name, user);
  return user;
}

/**
 * The tenant's account, created with a uid and group of its own from `range` when missing: no
 * home, no login shell, a system account. Null when Forja does not run as root (it cannot make
 * accounts; every tenant then runs as Forja's own user: `tenantIsolation` says so at start).
 */
export function tenantAccount(kind: TenantKind, slug: string, range: UidRange = DEFAULT_UID_RANGE): SystemUser | null {
  if (process.getuid?.() !== 0) return null;
  const name = tenantAccountName(kind, slug);
  const existing = lookUp(name);
  if (existing) return checkedInRange(existing, range);
  const limits = [`SYS_UID_MIN=${range.min}`, `SYS_UID_MAX=${range.max}`, `SYS_GID_MIN=${range.min}`, `SYS_GID_MAX=${range.max}`].flatMap((limit) => ['-K', limit]);
  const created = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', ...limits, name], { encoding: 'utf8' });
  // Two processes may create it at once (executor and web): the loser's "already exists" is fine.
  const user = lookUp(name);
  if (!user) throw new Error(`cannot create the account ${name} for ${kind} ${slug}: ${created.stderr.trim() || `useradd exited with ${created.status}`} (FORJA_TENANT_UID_RANGE ${range.min}-${range.max} may be full)`);
  return checkedInRange(user, range);
}

/** An account outside the range was not made by Forja (or the range moved): never taken for a tenant's. */
function checkedInRange(user: SystemUser, range: UidRange): SystemUser {
  if (user.uid < range.min || user.uid > range.max) throw new Error(`the account ${user.name} has uid ${user.uid}, outside FORJA_TENANT_UID_RANGE ${range.min}-${range.max}: Forja did not make it; remove or rename it`);
  return user;
}

/** Removes a purged tenant's account and group (nothing of it is left to own). */
export function removeTenantAccount(kind: TenantKind, slug: string): void {
  if (process.getuid?.() !== 0) return;
  const name = tenantAccountName(kind, slug);
  if (!lookUp(name)) return;
  known.delete(name);
  const removed = spawnSync('userdel', [name], { encoding: 'utf8' });
  // 6: no such user (removed meanwhile by another process).
  if (removed.status !== 0 && removed.status !== 6) throw new Error(`cannot remove the account ${name}: ${removed.stderr.trim()}`);
}

/** What `npm start` says about isolation: as root every tenant has its own account; as anyone else all share Forja's. */
export function tenantIsolation(): string {
  return process.getuid?.() === 0
    ? 'each instance and migration runs as an OS account of its own (FORJA_TENANT_UID_RANGE)'
    : 'OFF: not running as root, so instances, migrations and their tools all run as this user and can read one another\'s files, processes and Forja\'s data; run Forja as root on a machine shared by several customers';
}
