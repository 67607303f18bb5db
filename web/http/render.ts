import type { Request, Response } from 'express';
import type { WebContext } from '../context.ts';
import { csrfToken } from './csrf.ts';
import type { FlashLink } from './session.ts';

/** Whether to answer with a fragment: htmx asked for one (not a boosted navigation or a history restore). */
export function wantsPartial(req: Request): boolean {
  return req.get('hx-request') === 'true' && req.get('hx-boosted') !== 'true' && req.get('hx-history-restore-request') !== 'true';
}

/**
 * Renders a page, or its partial for htmx requests that want one. Every page gets the signed-in
 * user, the CSRF token and the flash messages (read once, then cleared).
 */
export function render(ctx: WebContext, req: Request, res: Response, page: string, data: Record<string, unknown> = {}, partial?: string): void {
  res.vary('HX-Request');
  const template = partial && wantsPartial(req) ? partial : page;
  // Partials show no messages: a search or a status block's poll must not use up the next page's.
  const flash = template === page ? (req.session?.flash ?? []) : [];
  if (req.session && template === page) req.session.flash = [];
  res.type('html').send(
    ctx.templates.render(template, {
      user: res.locals['user'],
      csrfToken: req.session ? csrfToken(req) : '',
      flash,
      path: req.path,
      oidcEnabled: Boolean(ctx.settings.FORJA_OIDC_ISSUER),
      oidcLabel: ctx.settings.FORJA_OIDC_LABEL,
      ...data,
    }),
  );
}

/** A message shown once on the next page, with a link when it offers one. */
export function flash(req: Request, kind: 'success' | 'error' | 'info', text: string, link?: FlashLink): void {
  req.session.flash = [...(req.session.flash ?? []), { kind, text, ...(link ? { link } : {}) }];
}

/**
 * A message about a job just queued. The instance page shows it inside the status block, which
 * keeps it (hx-preserve) while that job runs and drops it when the job ends: it never outlives
 * what it announced.
 */
export function jobFlash(req: Request, text: string): void {
  req.session.flash = [...(req.session.flash ?? []), { kind: 'success', text, aboutJob: true }];
}

/**
 * 303 after a successful POST; htmx follows it and swaps the page it lands on. The session is saved
 * first: express-session sends the headers before its own save completes, and a browser follows a
 * 303 on its headers, so the next page could load the session without this request's flash.
 */
export function seeOther(res: Response, location: string): void {
  const { session } = res.req;
  if (!session) return void res.redirect(303, location);
  session.save((error: unknown) => (error ? res.req.next?.(error) : res.redirect(303, location)));
}
