import { expect } from 'chai';
import type { RouteRule } from '#shared/auth/authorizationTable.ts';
import { openEventStream } from '#test/support/sseClient.ts';
import { openTool } from '#test/support/toolSession.ts';
import { USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebResponse, type WebSession } from '#test/support/webSession.ts';
import { answeredByTool, bodyFor, concretePath, IDENTITY_PROVIDER_ROUTES, isToolRoute, ruleKey, sendToTool, STREAMING_ROUTES, type WalkFixture } from './routeRequests.ts';
import { verdict, type Who } from './verdict.ts';

/**
 * Routes the walk's fixture has nothing for (its migration's run is only queued, so it made no
 * artifact): an allowed user gets past the guards to a 404 of the handler, which is what counts.
 */
const WITHOUT_FIXTURE = new Set(['web GET /migrations/:slug/artifacts/:artifact_id/download']);

/** A fresh session for `who`, so routes that end or replace a session (logout, login) affect no other check. */
async function sessionOf(platform: WebPlatform, who: Who): Promise<WebSession> {
  if (who !== 'anonymous') return platform.signedIn(who);
  const visitor = platform.visitor();
  await visitor.csrfToken();
  return visitor;
}

async function send(platform: WebPlatform, session: WebSession, rule: RouteRule, path: string, who: Who, headers: Record<string, string> = {}): Promise<WebResponse> {
  if (STREAMING_ROUTES.has(ruleKey(rule))) {
    const stream = await openEventStream(platform.web, session, path, headers);
    const streaming = (stream.headers.get('content-type') ?? '').startsWith('text/event-stream');
    const html = streaming ? '' : await stream.text();
    stream.close();
    return { status: stream.status, headers: stream.headers, location: stream.headers.get('location'), setCookies: [], html };
  }
  if (isToolRoute(rule)) return sendToTool(platform.web, session, rule, path, headers);
  const body = bodyFor(rule, who === 'anonymous' ? undefined : USERS[who]);
  return body ? session.post(path, body, { headers }) : session.get(path, headers);
}

/** Checks that web treats `who` on `rule` as the table says, with a valid CSRF token so only authorization can refuse. */
export async function checkWebRoute(platform: WebPlatform, rule: RouteRule, who: Who, fixture: WalkFixture): Promise<void> {
  const path = concretePath(rule, fixture);
  const what = `${ruleKey(rule)} as ${who}`;
  const session = await sessionOf(platform, who);
  const res = await send(platform, session, rule, path, who);
  const signInPage = `/login?next=${encodeURIComponent(path)}`;
  switch (verdict(rule.access, who)) {
    case 'challenged': {
      expect(res.status, what).to.equal(303);
      expect(res.location, what).to.equal(signInPage);
      const htmx = await send(platform, session, rule, path, who, { 'hx-request': 'true' });
      expect(htmx.status, `${what} (htmx)`).to.equal(401);
      expect(htmx.headers.get('hx-redirect'), `${what} (htmx)`).to.equal(signInPage);
      break;
    }
    case 'forbidden':
      expect(res.status, what).to.equal(403);
      expect(textOf(res.html), what).to.include(`This needs the ${rule.access} role; you are signed in as ${who}.`);
      break;
    case 'allowed':
      expect(res.status, what).to.not.be.oneOf([401, 403]);
      expect(res.status, what).to.be.below(500);
      expect(res.location ?? '', what).to.not.match(/^\/login\?next=/);
      // Tools answer on their own origin: web's GET is the way in (a one-time token), any other method a 404.
      if (isToolRoute(rule)) {
        if (rule.method !== 'GET') {
          expect(res.status, `${what}: no tool on web's origin`).to.equal(404);
          break;
        }
        // On the tool's host, with its cookie and own Origin, the tool answers; a tool answers its own 404 for a method it has no page for.
        const tool = await openTool(session, path);
        const answer = answeredByTool(rule, new Headers(Object.entries((await tool.get(path)).headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]]))));
        expect(answer.actual, `${what}: answered by the tool (its ${answer.header} header)`).to.match(answer.expected);
      } else if (!IDENTITY_PROVIDER_ROUTES.has(ruleKey(rule)) && !WITHOUT_FIXTURE.has(ruleKey(rule))) expect(res.status, `${what}: the walk should reach a real handler`).to.not.equal(404);
      break;
  }
}
