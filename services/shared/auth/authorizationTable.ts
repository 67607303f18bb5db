import type { Role } from './roles.ts';

/**
 * Who may call what: the one table every route of the control-plane and web is registered
 * through (a route missing here cannot be registered) and that a test walks for every role.
 * - `public`: anyone; `authenticated`: any signed-in user; a role: that role or a stronger one;
 * - `service`: the control-plane's internal endpoints, for web only (service token), acting for
 *   the user in `X-Forja-Actor`, who must have `actor` or a stronger role;
 * - `hook`: authorized by the project token in the path.
 */
export type Access = 'public' | 'authenticated' | Role | 'service' | 'hook';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface RouteRule {
  process: 'control-plane' | 'web';
  method: Method;
  /** Express path syntax. */
  path: string;
  access: Access;
  /** For `service` routes: the minimum role of the user the call acts for. */
  actor?: Role | 'authenticated';
}

const controlPlane = (method: Method, path: string, access: Access, actor?: RouteRule['actor']): RouteRule => ({
  process: 'control-plane',
  method,
  path,
  access,
  ...(actor ? { actor } : {}),
});
const web = (method: Method, path: string, access: Access): RouteRule => ({ process: 'web', method, path, access });

export const authorizationTable: readonly RouteRule[] = [
  controlPlane('GET', '/health', 'public'),
  controlPlane('GET', '/metrics', 'public'),
  controlPlane('GET', '/openapi.json', 'public'),
  controlPlane('GET', '/docs', 'public'),
  controlPlane('GET', '/docs/assets/:file', 'public'),
  controlPlane('GET', '/api/v1/me', 'viewer'),
  controlPlane('GET', '/api/v1/projects', 'viewer'),
  controlPlane('POST', '/api/v1/projects', 'developer'),
  controlPlane('GET', '/api/v1/projects/:slug', 'viewer'),
  controlPlane('PUT', '/api/v1/projects/:slug/repository', 'developer'),
  controlPlane('POST', '/api/v1/projects/:slug/webhook/rotate', 'developer'),
  controlPlane('GET', '/api/v1/projects/:slug/ssh-keys', 'viewer'),
  controlPlane('POST', '/api/v1/projects/:slug/ssh-keys', 'developer'),
  controlPlane('DELETE', '/api/v1/projects/:slug/ssh-keys/:key_id', 'developer'),
  controlPlane('POST', '/api/v1/projects/:slug/repo/verify', 'developer'),
  controlPlane('POST', '/api/v1/projects/:slug/host-keys/forget', 'admin'),
  controlPlane('GET', '/api/v1/ssh-keys', 'developer'),
  controlPlane('POST', '/api/v1/ssh-keys', 'admin'),
  controlPlane('DELETE', '/api/v1/ssh-keys/:key_id', 'admin'),
  controlPlane('GET', '/api/v1/instances', 'viewer'),
  controlPlane('POST', '/api/v1/instances', 'developer'),
  controlPlane('GET', '/api/v1/instances/:slug', 'viewer'),
  controlPlane('POST', '/api/v1/instances/:slug/action', 'developer'),
  controlPlane('GET', '/api/v1/migrations', 'viewer'),
  controlPlane('POST', '/api/v1/migrations', 'developer'),
  controlPlane('GET', '/api/v1/migrations/:slug', 'viewer'),
  controlPlane('PATCH', '/api/v1/migrations/:slug', 'developer'),
  controlPlane('DELETE', '/api/v1/migrations/:slug', 'developer'),
  controlPlane('POST', '/api/v1/migrations/:slug/run', 'developer'),
  controlPlane('POST', '/api/v1/migrations/:slug/run-anyway', 'developer'),
  controlPlane('POST', '/api/v1/migrations/:slug/pause', 'developer'),
  controlPlane('POST', '/api/v1/migrations/:slug/resume', 'developer'),
  controlPlane('GET', '/api/v1/migrations/:slug/runs', 'viewer'),
  controlPlane('GET', '/api/v1/migrations/:slug/runs/:number', 'viewer'),
  controlPlane('GET', '/api/v1/migrations/:slug/artifacts/:artifact_id', 'viewer'),
  // The audit history reads the event stream; a deleted migration's is an admin's (404 for others).
  controlPlane('GET', '/api/v1/migrations/:slug/history', 'viewer'),
  controlPlane('GET', '/api/v1/migrations/:slug/history.jsonl', 'viewer'),
  controlPlane('GET', '/api/v1/migrations/:slug/history/:position', 'viewer'),
  controlPlane('GET', '/internal/migrations/:slug/history', 'service', 'viewer'),
  controlPlane('GET', '/internal/migrations/:slug/history.jsonl', 'service', 'viewer'),
  controlPlane('GET', '/internal/migrations/:slug/history/:position', 'service', 'viewer'),
  controlPlane('POST', '/api/v1/migrations/:slug/runs/:number/resume', 'developer'),
  controlPlane('POST', '/api/v1/migrations/:slug/runs/:number/report', 'developer'),
  // Web's migration commands; stop last of them, then the API's (the authorization walk needs the
  // migration's run until the end).
  controlPlane('POST', '/internal/migrations', 'service', 'developer'),
  controlPlane('POST', '/internal/migrations/:slug/edit', 'service', 'developer'),
  controlPlane('POST', '/internal/migrations/:slug/run', 'service', 'developer'),
  controlPlane('POST', '/internal/migrations/:slug/run-anyway', 'service', 'developer'),
  controlPlane('POST', '/internal/migrations/:slug/pause', 'service', 'developer'),
  controlPlane('POST', '/internal/migrations/:slug/resume', 'service', 'developer'),
  controlPlane('POST', '/internal/migrations/:slug/runs/:number/resume', 'service', 'developer'),
  controlPlane('POST', '/internal/migrations/:slug/runs/:number/report', 'service', 'developer'),
  controlPlane('POST', '/internal/migrations/:slug/delete', 'service', 'developer'),
  controlPlane('POST', '/internal/migrations/:slug/stop', 'service', 'developer'),
  controlPlane('POST', '/api/v1/migrations/:slug/stop', 'developer'),
  controlPlane('GET', '/api/v1/migrations/:slug/resync', 'viewer'),
  controlPlane('POST', '/api/v1/migrations/:slug/resync', 'developer'),
  controlPlane('GET', '/internal/migrations/:slug/resync', 'service', 'viewer'),
  controlPlane('GET', '/api/v1/migrations/:slug/readiness', 'viewer'),
  controlPlane('GET', '/internal/migrations/:slug/readiness', 'service', 'viewer'),
  controlPlane('POST', '/internal/migrations/:slug/resync', 'service', 'developer'),
  controlPlane('GET', '/api/v1/recipes', 'developer'),
  controlPlane('GET', '/api/v1/recipes/:flavor/:stem', 'developer'),
  controlPlane('PUT', '/api/v1/recipes/:flavor/:stem', 'admin'),
  controlPlane('POST', '/internal/recipes/save', 'service', 'admin'),
  controlPlane('POST', '/internal/auth/verify', 'service'),
  controlPlane('POST', '/internal/users/oidc', 'service'),
  controlPlane('POST', '/internal/projects', 'service', 'developer'),
  controlPlane('POST', '/internal/projects/:slug/repository', 'service', 'developer'),
  controlPlane('POST', '/internal/projects/:slug/webhook/rotate', 'service', 'developer'),
  controlPlane('POST', '/internal/projects/:slug/delete', 'service', 'admin'),
  controlPlane('POST', '/internal/projects/:slug/ssh-keys/add', 'service', 'developer'),
  controlPlane('POST', '/internal/projects/:slug/ssh-keys/:key_id/remove', 'service', 'developer'),
  controlPlane('POST', '/internal/projects/:slug/repo/verify', 'service', 'developer'),
  controlPlane('POST', '/internal/projects/:slug/host-keys/forget', 'service', 'admin'),
  controlPlane('POST', '/internal/ssh-keys', 'service', 'admin'),
  controlPlane('POST', '/internal/ssh-keys/:key_id/delete', 'service', 'admin'),
  controlPlane('POST', '/webhooks/git/:project_slug/:token', 'hook'),
  controlPlane('POST', '/internal/instances', 'service', 'developer'),
  controlPlane('POST', '/internal/instances/purge', 'service', 'admin'),
  controlPlane('POST', '/internal/instances/:slug/action', 'service', 'developer'),
  controlPlane('POST', '/internal/instances/:slug/activity', 'service', 'developer'),
  controlPlane('POST', '/internal/instances/:slug/shell-sessions', 'service', 'developer'),
  controlPlane('POST', '/internal/instances/:slug/shell-sessions/:session_id/close', 'service', 'developer'),

  web('GET', '/health', 'public'),
  web('GET', '/metrics', 'public'),
  web('GET', '/login', 'public'),
  web('POST', '/login', 'public'),
  web('GET', '/logout', 'public'),
  web('POST', '/logout', 'public'),
  web('GET', '/auth/idp/login', 'public'),
  web('GET', '/auth/idp/callback', 'public'),
  web('GET', '/', 'viewer'),
  web('GET', '/projects', 'viewer'),
  web('POST', '/projects', 'developer'),
  web('GET', '/projects/:slug', 'viewer'),
  web('POST', '/projects/:slug/repo', 'developer'),
  web('POST', '/projects/:slug/webhook/rotate', 'developer'),
  web('POST', '/projects/:slug/delete', 'admin'),
  web('POST', '/projects/:slug/repo/verify', 'developer'),
  web('POST', '/projects/:slug/ssh-keys/add', 'developer'),
  web('POST', '/projects/:slug/ssh-keys/:key_id/remove', 'developer'),
  web('POST', '/projects/:slug/host-keys/forget', 'admin'),
  web('GET', '/ssh-keys', 'developer'),
  web('POST', '/ssh-keys', 'admin'),
  web('POST', '/ssh-keys/:key_id/delete', 'admin'),
  web('GET', '/instances', 'viewer'),
  web('POST', '/instances', 'developer'),
  web('GET', '/instances/new', 'developer'),
  web('GET', '/instances/upload', 'developer'),
  web('POST', '/instances/upload', 'developer'),
  web('POST', '/instances/purge', 'admin'),
  web('GET', '/instances/:slug', 'viewer'),
  web('POST', '/instances/:slug/action', 'developer'),
  web('GET', '/instances/:slug/logs', 'viewer'),
  web('GET', '/instances/:slug/logs/stream', 'viewer'),
  web('GET', '/instances/:slug/logs/download', 'viewer'),
  web('GET', '/instances/:slug/mail', 'viewer'),
  web('GET', '/instances/:slug/mail/:mail_id', 'viewer'),
  web('GET', '/instances/:slug/mail/:mail_id/raw', 'viewer'),
  web('GET', '/instances/:slug/mail/:mail_id/attachments/:index', 'viewer'),
  web('GET', '/instances/:slug/monitoring', 'viewer'),
  // The web shell's page and its WebSocket (a plain GET of the socket's path answers 426).
  web('GET', '/instances/:slug/shell', 'developer'),
  web('GET', '/instances/:slug/shell/socket', 'developer'),
  web('GET', '/admin/recipes', 'developer'),
  web('GET', '/admin/recipes/new', 'admin'),
  web('GET', '/admin/recipes/:flavor/:stem/edit', 'developer'),
  web('POST', '/admin/recipes/save', 'admin'),
  web('GET', '/migrations', 'viewer'),
  web('GET', '/migrations/:slug/resync', 'viewer'),
  web('POST', '/migrations/:slug/resync', 'developer'),
  web('GET', '/migrations/new', 'developer'),
  web('POST', '/migrations/new', 'developer'),
  web('GET', '/migrations/:slug', 'viewer'),
  web('POST', '/migrations/:slug/edit', 'developer'),
  web('GET', '/migrations/:slug/runs/:number', 'viewer'),
  web('GET', '/migrations/:slug/runs/:number/logs', 'viewer'),
  web('GET', '/migrations/:slug/runs/:number/logs/stream', 'viewer'),
  web('GET', '/migrations/:slug/runs/:number/logs/download', 'viewer'),
  web('GET', '/migrations/:slug/artifacts/:artifact_id/download', 'viewer'),
  web('GET', '/migrations/:slug/history', 'viewer'),
  web('GET', '/migrations/:slug/history.jsonl', 'viewer'),
  web('GET', '/migrations/:slug/history/:position', 'viewer'),
  web('POST', '/migrations/:slug/run', 'developer'),
  web('POST', '/migrations/:slug/run-anyway', 'developer'),
  web('POST', '/migrations/:slug/pause', 'developer'),
  web('POST', '/migrations/:slug/resume', 'developer'),
  web('POST', '/migrations/:slug/runs/:number/resume', 'developer'),
  web('POST', '/migrations/:slug/runs/:number/report', 'developer'),
  web('POST', '/migrations/:slug/stop', 'developer'),
  web('POST', '/migrations/:slug/delete', 'developer'),
  // Tool proxies: every method, HEAD served by the GET route; WebSocket upgrades follow the GET rule.
  // Every instance's caught mail and Forja's notices: each instance's own mail is at /instances/:slug/mail.
  ...toolRules('/mails{/*path}', 'admin'),
  // The database admin opens an instance's database as its owner: operating instances is a developer's job.
  ...toolRules('/dbadmin{/*path}', 'developer'),
  ...toolRules('/monitoring{/*path}', 'authenticated'),
  // Per-instance tools run code as the instance's user: developers only.
  ...toolRules('/instances/:slug/editor/proxy{/*path}', 'developer'),
  ...toolRules('/instances/:slug/code/proxy{/*path}', 'developer'),
];

function toolRules(path: string, access: Access): RouteRule[] {
  return (['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const).map((method) => web(method, path, access));
}

export function ruleFor(process: RouteRule['process'], method: Method, path: string): RouteRule {
  const rule = authorizationTable.find((candidate) => candidate.process === process && candidate.method === method && candidate.path === path);
  if (!rule) throw new Error(`${method} ${path} of ${process} is not in the authorization table`);
  return rule;
}
