import { expect } from 'chai';
import { userIdFor } from '#services/control-plane/identity/user.ts';
import type { RouteRule } from '#shared/auth/authorizationTable.ts';
import { ROLES, type Role } from '#shared/auth/roles.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { basic } from '#test/support/platform.ts';
import { USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { bodyFor, concretePath, ruleKey, type WalkFixture } from './routeRequests.ts';
import { actorVerdict, verdict, type Verdict } from './verdict.ts';

interface Caller {
  label: string;
  headers: Record<string, string>;
  /** Whose credentials a body should carry, if any. */
  email?: string;
  expected: Verdict;
}

/** Who calls a route: for the JSON API, Basic credentials of each kind; for internal routes, tokens and actors. */
function callersOf(rule: RouteRule, serviceToken: string): Caller[] {
  if (rule.access === 'hook') throw new Error(`${ruleKey(rule)}: the walk does not know hook routes yet; teach it the right and a wrong project token`);
  if (rule.access !== 'service') {
    const challengedUnlessPublic: Verdict = rule.access === 'public' ? 'allowed' : 'challenged';
    return [
      { label: 'anonymous', headers: {}, expected: verdict(rule.access, 'anonymous') },
      { label: 'a wrong password', headers: { authorization: basic(USERS.admin, 'wrong password') }, expected: challengedUnlessPublic },
      { label: 'a deactivated admin', headers: { authorization: basic(USERS.deactivated) }, expected: challengedUnlessPublic },
      ...ROLES.map((role) => ({ label: role, headers: { authorization: basic(USERS[role]) }, email: USERS[role], expected: verdict(rule.access, role) })),
    ];
  }
  const token = { authorization: `Bearer ${serviceToken}` };
  const actor = (who: Role | 'deactivated') => ({ ...token, 'x-forja-actor': userIdFor(USERS[who]) });
  return [
    { label: 'no token', headers: {}, expected: 'challenged' },
    { label: 'a wrong token', headers: { authorization: `Bearer ${serviceToken.slice(1)}x` }, expected: 'challenged' },
    { label: 'an admin’s Basic credentials', headers: { authorization: basic(USERS.admin) }, expected: 'challenged' },
    { label: 'the token without an actor', headers: token, expected: actorVerdict(rule.actor, undefined) },
    { label: 'the token acting for a deactivated admin', headers: actor('deactivated'), expected: actorVerdict(rule.actor, { role: 'admin', active: false }) },
    ...ROLES.map((role) => ({ label: `the token acting for a ${role}`, headers: actor(role), expected: actorVerdict(rule.actor, { role, active: true }) })),
  ];
}

/** Checks that the control-plane treats every kind of caller of `rule` as the table says. */
export async function checkControlPlaneRoute(platform: WebPlatform, rule: RouteRule, fixture: WalkFixture): Promise<void> {
  const { serviceToken } = resolvePlatformSecrets(platform.config);
  const path = concretePath(rule, fixture);
  for (const caller of callersOf(rule, serviceToken)) {
    const what = `${ruleKey(rule)} with ${caller.label}`;
    const body = bodyFor(rule, caller.email);
    const res = await fetch(`${platform.controlPlane}${path}`, {
      method: rule.method,
      headers: { ...caller.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    await res.arrayBuffer();
    switch (caller.expected) {
      case 'challenged':
        expect(res.status, what).to.equal(401);
        if (rule.access !== 'service') expect(res.headers.get('www-authenticate'), what).to.equal('Basic realm="forja"');
        break;
      case 'forbidden':
        expect(res.status, what).to.equal(403);
        break;
      case 'allowed':
        expect(res.status, what).to.not.be.oneOf([401, 403, 404]);
        expect(res.status, what).to.be.below(500);
        break;
    }
  }
}
