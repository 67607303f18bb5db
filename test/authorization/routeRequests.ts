import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RouteRule } from '#shared/auth/authorizationTable.ts';
import { RECIPE_FILES_DIR } from '#services/migrations/recipes/recipeFiles.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { USERS } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, type WebResponse, type WebSession } from '#test/support/webSession.ts';

/** What the walk works on: a real project, an instance of it and a migration with one run, so `:slug` routes reach their handler. */
export interface WalkFixture {
  slug: string;
  instance: string;
  migration: string;
}

/** The caught message of the walk's instance (authorizationTable.int.spec.ts puts it there). */
export const WALK_MAIL_ID = '20260101T000000000Z-0a0b0c0d';

const INSTANCE_PATH = /^\/(api\/v1\/|internal\/)?instances\//;
const MIGRATION_PATH = /^\/(api\/v1\/|internal\/)?migrations\//;

export const ruleKey = (rule: Pick<RouteRule, 'process' | 'method' | 'path'>): string => `${rule.process} ${rule.method} ${rule.path}`;

/** The route's path with real values for its parameters. */
export function concretePath(rule: RouteRule, fixture: WalkFixture): string {
  const slug = INSTANCE_PATH.test(rule.path) ? fixture.instance : MIGRATION_PATH.test(rule.path) ? fixture.migration : fixture.slug;
  // key_id 0 is no key id: an allowed remove or delete is refused with 422 after the guard and changes nothing.
  const values: Record<string, string> = { slug, file: 'init.js', number: '1', artifact_id: '1001', position: '1', flavor: 'community', stem: '16.0-17.0', key_id: '0', session_id: '00000000-0000-4000-8000-000000000000', mail_id: WALK_MAIL_ID, index: '0' };
  // A tool's `{/*path}` (every path under its prefix): its home page; Jupyter's API status for the
  // notebook editor, whose home page is a redirect that refuses any other method with its own 403 (no _xsrf).
  const toolPath = rule.path.startsWith('/instances/:slug/editor/') ? '/api/status' : '/';
  return rule.path.replace('{/*path}', toolPath).replace(/:(\w+)/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${ruleKey(rule)}: the walk has no value for :${name}; add one in routeRequests.ts`);
    return value;
  });
}

/** The shipped recipe the walk saves again as it is: allowed saves change nothing. */
const WALK_RECIPE = readFileSync(join(RECIPE_FILES_DIR, 'community', '16.0-17.0.yaml'), 'utf8');

/** A local repository that does not exist, inside the test platform's FORJA_GIT_FILE_ROOTS: git run on it touches no network. */
const WALK_REPOSITORY = `file://${tmpdir()}/forja-walk-no-such-repository/erp.git`;

let serial = 0;
const unique = (what: string) => `Walk ${what} ${++serial}`;

/**
 * A body valid enough that an authorized request does its job instead of failing validation, for
 * every route that takes one. Deleting sends a wrong name, so the walk's project survives.
 */
const BODIES: Record<string, (email: string | undefined) => Record<string, string>> = {
  'web POST /login': (email) => ({ email: email ?? USERS.viewer, password: PASSWORD }),
  'web POST /logout': () => ({}),
  'web POST /projects': () => ({ name: unique('web project') }),
  'web POST /projects/:slug/repo': () => ({ git_repo: WALK_REPOSITORY }),
  'web POST /projects/:slug/webhook/rotate': () => ({}),
  'web POST /projects/:slug/delete': () => ({ confirm_name: 'not the name' }),
  // Verification reaches no network: every repository the walk sets is a missing local one
  // (WALK_REPOSITORY), so an allowed verify answers 422 (no repository yet) or "not found".
  'web POST /projects/:slug/repo/verify': () => ({}),
  'web POST /projects/:slug/ssh-keys/add': () => ({ key_id: '0' }),
  'web POST /projects/:slug/ssh-keys/:key_id/remove': () => ({}),
  'web POST /projects/:slug/host-keys/forget': () => ({ host: 'not a host', port: '22' }),
  // A name the walk's admin may take: a generated key, made once per allowed call.
  'web POST /ssh-keys': () => ({ mode: 'generate', name: unique('web key') }),
  'web POST /ssh-keys/:key_id/delete': () => ({}),
  'control-plane POST /api/v1/projects/:slug/ssh-keys': () => ({ key_id: '0' }),
  'control-plane POST /api/v1/projects/:slug/repo/verify': () => ({}),
  'control-plane POST /api/v1/projects/:slug/host-keys/forget': () => ({ host: 'not a host' }),
  'control-plane POST /api/v1/ssh-keys': () => ({ name: unique('api key'), generate: 'true' }),
  'control-plane POST /internal/projects/:slug/ssh-keys/add': () => ({ key_id: '0' }),
  'control-plane POST /internal/projects/:slug/ssh-keys/:key_id/remove': () => ({}),
  'control-plane POST /internal/projects/:slug/repo/verify': () => ({}),
  'control-plane POST /internal/projects/:slug/host-keys/forget': () => ({ host: 'not a host' }),
  'control-plane POST /internal/ssh-keys': () => ({ name: unique('internal key'), generate: 'true' }),
  'control-plane POST /internal/ssh-keys/:key_id/delete': () => ({}),
  'control-plane DELETE /api/v1/ssh-keys/:key_id': () => ({}),
  'control-plane DELETE /api/v1/projects/:slug/ssh-keys/:key_id': () => ({}),
  'web POST /instances': () => ({ name: unique('web instance'), project: 'Walk Target', erp_version: '18.0' }),
  // Not multipart: refused with 422 after the guard, which is all the walk needs to see.
  'web POST /instances/upload': () => ({ name: unique('web upload'), project: 'Walk Target', erp_version: '18.0' }),
  'web POST /instances/purge': () => ({}),
  // The walk's instance is busy with its provisioning job: refused with 409, so it stays as it is.
  'web POST /instances/:slug/action': () => ({ action: 'start' }),
  'control-plane POST /api/v1/projects': () => ({ name: unique('api project') }),
  'control-plane PUT /api/v1/projects/:slug/repository': () => ({ git_repo: WALK_REPOSITORY }),
  'control-plane POST /api/v1/projects/:slug/webhook/rotate': () => ({}),
  'control-plane POST /internal/auth/verify': () => ({ email: USERS.viewer, password: PASSWORD }),
  'control-plane POST /internal/users/oidc': () => ({ email: `walk-${++serial}@example.com` }),
  'control-plane POST /internal/projects': () => ({ name: unique('internal project') }),
  'control-plane POST /internal/projects/:slug/repository': () => ({ git_repo: WALK_REPOSITORY }),
  'control-plane POST /internal/projects/:slug/webhook/rotate': () => ({}),
  'control-plane POST /internal/projects/:slug/delete': () => ({ confirm_name: 'not the name' }),
  'control-plane POST /api/v1/instances': () => ({ name: unique('api instance'), project: 'walk-target', erp_version: '18.0' }),
  'control-plane POST /api/v1/instances/:slug/action': () => ({ action: 'start' }),
  'control-plane POST /internal/instances': () => ({ name: unique('internal instance'), project: 'walk-target', erp_version: '18.0' }),
  'control-plane POST /internal/instances/purge': () => ({}),
  'control-plane POST /internal/instances/:slug/action': () => ({ action: 'start' }),
  // The walk's instance is not running: an allowed call records no visit.
  'control-plane POST /internal/instances/:slug/activity': () => ({}),
  // The walk's instance is still provisioning: an allowed open is refused with 409; the close (its duration left out) with 422.
  'control-plane POST /internal/instances/:slug/shell-sessions': () => ({ session_id: '00000000-0000-4000-8000-000000000000', runtime: 'process' }),
  'control-plane POST /internal/instances/:slug/shell-sessions/:session_id/close': () => ({ reason: 'user' }),
  // Validate only: the walk's allowed call lints and saves nothing.
  'web POST /admin/recipes/save': () => ({ key: 'community.16.0-17.0', yaml: WALK_RECIPE, action: 'validate' }),
  // The walk's migration follows the current recipe: a decision is refused with 409 and changes nothing.
  'control-plane POST /api/v1/migrations/:slug/resync': () => ({ decision: 'keep' }),
  'web POST /migrations/:slug/resync': () => ({ decision: 'keep' }),
  'control-plane POST /internal/migrations/:slug/resync': () => ({ decision: 'keep' }),
  'control-plane PUT /api/v1/recipes/:flavor/:stem': () => ({ yaml: WALK_RECIPE }),
  'control-plane POST /internal/recipes/save': () => ({ key: 'community.16.0-17.0', yaml: WALK_RECIPE }),
  'control-plane POST /api/v1/migrations': () => ({ name: unique('api migration'), origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/walk.dump' }),
  'control-plane PATCH /api/v1/migrations/:slug': () => ({ contract: 'M1234-walk' }),
  'control-plane DELETE /api/v1/migrations/:slug': () => ({ confirm_name: 'not the name' }),
  // The walk's migration has a queued run: a new run and run-anyway are refused with 409; pause and resume
  // go back and forth; the gate is refused (no gate); stop, last in the table, takes it back to draft.
  'control-plane POST /api/v1/migrations/:slug/run': () => ({}),
  'control-plane POST /api/v1/migrations/:slug/run-anyway': () => ({ reason: 'walk' }),
  'control-plane POST /api/v1/migrations/:slug/pause': () => ({}),
  'control-plane POST /api/v1/migrations/:slug/resume': () => ({}),
  'control-plane POST /api/v1/migrations/:slug/stop': () => ({}),
  'control-plane POST /api/v1/migrations/:slug/runs/:number/resume': () => ({ decision: 'approve' }),
  // Any run that exists may be reported on: the walk's queued run gets a PDF each time it is allowed.
  'control-plane POST /api/v1/migrations/:slug/runs/:number/report': () => ({}),
  // Web's migration commands, in the same order and to the same effect on the walk's queued migration
  // (web first): a run refused with 409, pause and resume back and forth, no gate. Web's stop is
  // refused (its box not ticked) so the run stays for the control-plane's walk; the internal stop,
  // before the API's, takes it back to draft.
  'control-plane POST /internal/migrations': () => ({ name: unique('internal migration'), origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/walk.dump' }),
  'control-plane POST /internal/migrations/:slug/edit': () => ({ contract: 'M1234-walk' }),
  'control-plane POST /internal/migrations/:slug/run': () => ({}),
  'control-plane POST /internal/migrations/:slug/run-anyway': () => ({ reason: 'walk' }),
  'control-plane POST /internal/migrations/:slug/pause': () => ({}),
  'control-plane POST /internal/migrations/:slug/resume': () => ({}),
  'control-plane POST /internal/migrations/:slug/runs/:number/resume': () => ({ decision: 'approve' }),
  'control-plane POST /internal/migrations/:slug/runs/:number/report': () => ({}),
  'control-plane POST /internal/migrations/:slug/delete': () => ({ confirm_name: 'not the name' }),
  'control-plane POST /internal/migrations/:slug/stop': () => ({}),
  'web POST /migrations/new': () => ({ name: unique('web migration'), origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/walk.dump' }),
  'web POST /migrations/:slug/edit': () => ({ notify_to: 'walk@example.com' }),
  'web POST /migrations/:slug/run': () => ({}),
  'web POST /migrations/:slug/run-anyway': () => ({ reason: 'walk' }),
  'web POST /migrations/:slug/pause': () => ({}),
  'web POST /migrations/:slug/resume': () => ({}),
  'web POST /migrations/:slug/runs/:number/resume': () => ({ decision: 'approve' }),
  'web POST /migrations/:slug/runs/:number/report': () => ({}),
  'web POST /migrations/:slug/stop': () => ({}),
  'web POST /migrations/:slug/delete': () => ({ confirm_name: 'not the name' }),
};

/** The body to send to `rule` as the user with `email` (undefined: nobody signed in); GETs send none. */
export function bodyFor(rule: RouteRule, email?: string): Record<string, string> | undefined {
  if (rule.method === 'GET') return undefined;
  const body = BODIES[ruleKey(rule)];
  if (!body) throw new Error(`${ruleKey(rule)}: the walk has no body for it; add one in routeRequests.ts`);
  return body(email);
}

/** Routes that exist only when an identity provider is configured (the walk's web runs without one). */
export const IDENTITY_PROVIDER_ROUTES = new Set(['web GET /auth/idp/login', 'web GET /auth/idp/callback']);

/** Routes answering with an endless event stream: the walk reads their status and headers, then hangs up. */
export const STREAMING_ROUTES = new Set(['web GET /instances/:slug/logs/stream', 'web GET /migrations/:slug/runs/:number/logs/stream']);

/** Tool proxies' routes: sent with their own method, without a form, to the tool (the walk runs the mail catcher). */
export const TOOL_PREFIXES = ['/mails', '/monitoring', '/dbadmin', '/instances/:slug/editor/proxy', '/instances/:slug/code/proxy'];
export const isToolRoute = (rule: RouteRule): boolean => TOOL_PREFIXES.some((prefix) => rule.path === `${prefix}{/*path}`);

/** How the walk tells a tool's own answer from web's: its server's header. */
export function answeredByTool(rule: RouteRule, headers: Headers): { header: string; expected: RegExp; actual: string | null } {
  // Adminer's router (services/dbadmin/php/router.php) names itself on every answer.
  if (rule.path.startsWith('/dbadmin')) return { header: 'x-forja-tool', expected: /^dbadmin$/, actual: headers.get('x-forja-tool') };
  if (rule.path.startsWith('/instances/:slug/editor/')) return { header: 'server', expected: /^TornadoServer\//, actual: headers.get('server') };
  // code-server sends its home page to its folder, and answers other methods there with VS Code's plain-text 405.
  if (rule.path.startsWith('/instances/:slug/code/')) {
    return rule.method === 'GET' ? { header: 'location', expected: /^\.\/\?folder=\//, actual: headers.get('location') } : { header: 'content-type', expected: /^text\/plain$/, actual: headers.get('content-type') };
  }
  // Prometheus sends its home page to its graph page, and refuses other methods naming the ones it takes.
  if (rule.path.startsWith('/monitoring')) {
    return rule.method === 'GET' ? { header: 'location', expected: /^\/monitoring\/(classic\/)?graph/, actual: headers.get('location') } : { header: 'allow', expected: /^GET, OPTIONS$/, actual: headers.get('allow') };
  }
  return { header: 'x-powered-by', expected: /^Express$/, actual: headers.get('x-powered-by') };
}

/** A tool route's request as `session` with the rule's own method (webSession only sends GET and form POSTs). */
export async function sendToTool(baseUrl: string, session: WebSession, rule: RouteRule, path: string, headers: Record<string, string>): Promise<WebResponse> {
  const cookie: Record<string, string> = session.cookie ? { cookie: `${SESSION_COOKIE}=${session.cookie}` } : {};
  const res = await fetch(`${baseUrl}${path}`, { method: rule.method, headers: { ...headers, ...cookie }, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
  return { status: res.status, headers: res.headers, location: res.headers.get('location'), setCookies: res.headers.getSetCookie(), html: await res.text() };
}
