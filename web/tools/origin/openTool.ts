import type { RequestHandler } from 'express';
import { HttpError } from '#shared/http/errors.ts';
import { toolFor, type WebTool } from '../webTools.ts';
import { pathSlug, toolHost, toolKind, toolOrigin, type ToolsOrigin } from './toolHosts.ts';
import type { ToolTokens } from './toolTokens.ts';

/** How web signs a user in to the tools origin. */
export interface ToolSignIn {
  origin: ToolsOrigin;
  tokens: ToolTokens;
}

/** Where web sends a user to open the tool page `path` (a tool path of web's, `/mails/…`): its host's sign-in with a fresh token. */
export function toolEntry(tool: WebTool, path: string, userId: string, signIn: ToolSignIn): string {
  const kind = toolKind(tool.prefix);
  const slug = pathSlug(tool.prefix, path.split('?', 1)[0] ?? '');
  // The database admin's bare `/dbadmin/` names no instance: its own host, where Adminer gets no role.
  const host = toolHost(kind, slug, signIn.origin);
  const token = signIn.tokens.mint({ user: userId, kind, slug: slug ?? null, host });
  return `${toolOrigin(host, signIn.origin)}/.forja/enter?token=${token}&to=${encodeURIComponent(path)}`;
}

/**
 * Web's GET on a tool path (`/mails/…`, `/instances/<slug>/code/proxy/…`) after the authorization
 * table's rule: no proxy on web's origin any more, a 303 to the tool's own origin with a one-time
 * token bound to the user, the tool, the instance and the host.
 */
export function openTool(tools: WebTool[], signIn: ToolSignIn): RequestHandler {
  return (req, res, next) => {
    const tool = toolFor(tools, req.originalUrl);
    const user = res.locals['user'] as { user_id: string } | undefined;
    const entry = tool && user ? toolEntry(tool, req.originalUrl, user.user_id, signIn) : null;
    if (!entry) return next(new HttpError(404, 'There is no such tool page.'));
    res.setHeader('Cache-Control', 'no-store');
    if (req.get('hx-request') === 'true') return void res.status(200).set('HX-Redirect', entry).end();
    res.redirect(303, entry);
  };
}
