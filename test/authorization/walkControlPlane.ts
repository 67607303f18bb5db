import { expect } from 'chai';
import { getProject } from '#projections/projects/projectDetail.ts';
import { userIdFor } from '#services/control-plane/identity/user.ts';
import type { RouteRule } from '#shared/auth/authorizationTable.ts';
import { ROLES, type Role } from '#shared/auth/roles.ts';
import { webhookToken } from '#shared/auth/webhookToken.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { basic } from '#test/support/platform.ts';
import { USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { bodyFor, concretePath, ruleKey, type WalkFixture } from './routeRequests.ts';
import { actorVerdict, verdict, type Verdict } from './verdict.ts';

/**
 * Routes the walk's fixture has nothing for (its migration's run is only queued, so it made no
 * artifact): an allowed caller gets past the guards to a 404 of the handler, which is what counts.
 */
const WITHOUT_FIXTURE = new Set(['control-plane GET /api/v1/migrations/:slug/artifacts/:artifact_id']);

interface Caller {
  label: string;
  headers: Record<string, string>;
  /** Whose credentials a body should carry, if any. */
  email?: string;
  expected: Verdict;
}

/** Who calls a route: for the JSON API, Basic credentials of each kind; for internal routes, tokens and actors. */
function callersOf(rule: RouteRule, serviceToken: string): Caller[] {
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
  if (rule.access === 'hook') return checkHookRoute(platform, rule, fixture);
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
        expect(res.status, what).to.not.be.oneOf(WITHOUT_FIXTURE.has(ruleKey(rule)) ? [401, 403] : [401, 403, 404]);
        expect(res.status, what).to.be.below(500);
        break;
    }
  }
}

/** A push hook: the project's token in the path reaches the handler, a wrong one is 403 whatever credentials come with it. */
async function checkHookRoute(platform: WebPlatform, rule: RouteRule, fixture: WalkFixture): Promise<void> {
  // The walk rotates the token too (POST …/webhook/rotate): take the project's nonce as it is now.
  const nonce = (await getProject(platform.infra.db.withSchema('read_model'), fixture.slug))?.webhook_nonce ?? null;
  const right = webhookToken(resolvePlatformSecrets(platform.config).webhookSecret, fixture.slug, nonce);
  const callers: Array<{ label: string; token: string; headers: Record<string, string>; expected: number }> = [
    { label: 'the right token', token: right, headers: {}, expected: 200 },
    { label: 'a wrong token', token: `${right.slice(0, -1)}${right.endsWith('0') ? '1' : '0'}`, headers: {}, expected: 403 },
    { label: 'a wrong token and an admin’s Basic credentials', token: '0'.repeat(64), headers: { authorization: basic(USERS.admin) }, expected: 403 },
  ];
  for (const caller of callers) {
    const path = rule.path.replace(':project_slug', fixture.slug).replace(':token', caller.token);
    const res = await fetch(`${platform.controlPlane}${path}`, {
      method: rule.method,
      headers: { ...caller.headers, 'content-type': 'application/json', 'x-github-event': 'push' },
      body: JSON.stringify({ ref: 'refs/heads/walk-branch', after: 'a'.repeat(40) }),
      signal: AbortSignal.timeout(15_000),
    });
    await res.arrayBuffer();
    expect(res.status, `${ruleKey(rule)} with ${caller.label}`).to.equal(caller.expected);
  }
}
