import type { IncomingMessage } from 'node:http';
import { findUserById, type UserRow } from '#projections/users/users.ts';
import { roleAtLeast, type Role } from '#shared/auth/roles.ts';
import type { WebContext } from '../../context.ts';
import { upgradeAccess, type WebTool } from '../webTools.ts';
import { pathSlug, requestHost, toolHost, toolKind, type ToolsOrigin } from './toolHosts.ts';
import type { ToolClaims, ToolTokens } from './toolTokens.ts';

/** The tools origin's cookie: host-only on each tool host, never web's session cookie. */
export const TOOL_COOKIE = 'forja.tool';
const USER_CACHE_MS = 5_000;

/** The tool a request on the tools origin is for: its host names the tool, its path the same instance. */
export interface ToolRequest {
  tool: WebTool;
  host: string;
  kind: string;
  slug: string | null;
}

/** Finds the tool a Host and path name; null for a host or path that is no tool's (404). */
export function toolRequest(tools: WebTool[], origin: ToolsOrigin, req: IncomingMessage, path = req.url ?? ''): ToolRequest | null {
  const host = requestHost(req.headers.host, origin.domain);
  if (!host) return null;
  const onlyPath = path.split('?', 1)[0] ?? '';
  for (const tool of tools) {
    const kind = toolKind(tool.prefix);
    if (!host.startsWith(`${kind}.`) && !host.startsWith(`${kind}-`)) continue;
    const slug = pathSlug(tool.prefix, onlyPath) ?? null;
    if (toolHost(kind, slug ?? undefined, origin) === host && underPrefix(tool.prefix, onlyPath)) return { tool, host, kind, slug };
  }
  return null;
}

function underPrefix(prefix: string, path: string): boolean {
  const pattern = prefix.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment)).join('/');
  return new RegExp(`^${pattern}(?:/|$)`).test(path);
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/** Reads the user behind a tool cookie from the read model (briefly cached) and checks the tool's rule still lets them in. */
export function toolUsers(ctx: WebContext, tokens: ToolTokens) {
  const cache = new Map<string, { user: UserRow | undefined; until: number }>();
  const userOf = async (id: string): Promise<UserRow | undefined> => {
    const hit = cache.get(id);
    if (hit && hit.until > Date.now()) return hit.user;
    const user = await findUserById(ctx.readModel, id);
    cache.set(id, { user, until: Date.now() + USER_CACHE_MS });
    return user;
  };
  const allowed = (user: UserRow | undefined, tool: WebTool): user is UserRow => {
    const access = upgradeAccess(tool);
    const minimum: Role = access === 'authenticated' ? 'viewer' : (access as Role);
    return user !== undefined && user.active && roleAtLeast(user.role as Role, minimum);
  };
  return {
    allowed,
    /** The active, allowed user a request's tool cookie names for this tool; undefined otherwise. */
    async signedIn(req: IncomingMessage, target: ToolRequest): Promise<UserRow | undefined> {
      const claims: ToolClaims | null = tokens.readCookie(cookieValue(req.headers.cookie, TOOL_COOKIE), target.host);
      if (!claims || claims.kind !== target.kind || claims.slug !== target.slug) return undefined;
      const user = await userOf(claims.user);
      return allowed(user, target.tool) ? user : undefined;
    },
  };
}
