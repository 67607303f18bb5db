import type { Access } from '#shared/auth/authorizationTable.ts';
import { roleAtLeast, type Role } from '#shared/auth/roles.ts';

export type Who = 'anonymous' | Role;

/** What the table promises: sent to sign in, refused for a role too weak, or let through to the handler. */
export type Verdict = 'challenged' | 'forbidden' | 'allowed';

/** The verdict the table gives `who` on a route of `access` (`service` and `hook` routes are checked their own way). */
export function verdict(access: Access, who: Who): Verdict {
  switch (access) {
    case 'public':
      return 'allowed';
    case 'authenticated':
      return who === 'anonymous' ? 'challenged' : 'allowed';
    case 'viewer':
    case 'developer':
    case 'admin':
      if (who === 'anonymous') return 'challenged';
      return roleAtLeast(who, access) ? 'allowed' : 'forbidden';
    case 'service':
    case 'hook':
      throw new Error(`${access} routes have no verdict by role`);
  }
}

/** The verdict for a service call acting for `actor` (undefined: no `X-Forja-Actor`) on a route needing `minimum`. */
export function actorVerdict(minimum: Role | 'authenticated' | undefined, actor: { role: Role; active: boolean } | undefined): Verdict {
  if (minimum === undefined) return 'allowed';
  if (!actor?.active) return 'forbidden';
  return minimum === 'authenticated' || roleAtLeast(actor.role, minimum) ? 'allowed' : 'forbidden';
}
