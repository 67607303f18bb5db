import type { Request, Response, Router } from 'express';
import { loadLoginThrottleSettings } from '#shared/auth/loginThrottle.settings.ts';
import { loginThrottle, type Outcome } from '#shared/auth/loginThrottle.ts';
import { orExit } from '#shared/config/config.ts';
import type { WebContext } from '../context.ts';
import { CommandRefused } from '../controlPlaneClient.ts';
import { destroySession, regenerateSession, saveSession } from '../http/session.ts';
import { render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { safeNext } from './safeNext.ts';

/** Signs a user in: a fresh session id (no fixation), then the user id in it. */
export async function signIn(req: Request, userId: string, email: string): Promise<void> {
  await regenerateSession(req);
  req.session.userId = userId;
  req.session.flash = [{ kind: 'success', text: `Signed in as ${email}.` }];
  await saveSession(req);
}

/** What each answer of the control-plane's password check means for the login throttle. */
const OUTCOMES: Record<number, Outcome> = { 401: 'wrong', 403: 'right', 422: 'unchecked' };

/**
 * `/login` (form), `/logout`. Passwords are checked by the control-plane; web never reads secrets.
 * Guessing is throttled here, per client address and per account, before the control-plane is
 * asked: web knows the client, the control-plane only sees web.
 */
export function loginRoutes(router: Router, ctx: WebContext): void {
  const throttle = loginThrottle(orExit(() => loadLoginThrottleSettings()));

  route(router, 'GET', '/login', (req: Request, res: Response) => {
    if (res.locals['user']) return seeOther(res, safeNext(req.query['next']));
    render(ctx, req, res, 'auth/login.njk', { next: safeNext(req.query['next']), email: '' });
  });

  route(router, 'POST', '/login', async (req: Request, res: Response) => {
    const body = req.body as { email?: string; password?: string; next?: string };
    const email = String(body.email ?? '').trim();
    const next = safeNext(body.next);
    const again = (status: number, error: string) => {
      res.status(status);
      render(ctx, req, res, 'auth/login.njk', { next, email, error });
    };
    if (!email || !body.password) return again(422, 'Enter your e-mail and password.');
    const admission = throttle.admit(email, req.ip ?? req.socket.remoteAddress ?? '');
    if (!admission.admitted) {
      res.set('Retry-After', String(admission.retryAfterS));
      return again(429, `Too many failed sign-ins for this account or from your network. Try again in ${waitText(admission.retryAfterS)}.`);
    }
    let user;
    try {
      user = await ctx.controlPlane.verifyPassword(email, String(body.password));
    } catch (error) {
      const status = error instanceof CommandRefused ? error.status : 0;
      admission.settle(OUTCOMES[status] ?? 'unchecked');
      if (status === 503) {
        res.set('Retry-After', '1');
        return again(503, 'Too many sign-ins are being checked at once. Try again in a moment.');
      }
      if (!(status in OUTCOMES)) throw error;
      return again(status === 403 ? 403 : 401, status === 403 ? 'This account is deactivated. Ask an administrator to reactivate it.' : 'Wrong e-mail or password.');
    }
    admission.settle('right');
    await signIn(req, user.user_id, user.email);
    seeOther(res, next);
  });

  /**
   * Signing out changes state, so it is a POST with the CSRF token (checked for every POST): a link
   * or an image on another site pointing at /logout must not sign anyone out. A GET only shows the
   * form, for old bookmarks.
   */
  route(router, 'GET', '/logout', (req: Request, res: Response) => {
    if (!res.locals['user']) return seeOther(res, '/login');
    render(ctx, req, res, 'auth/logout.njk');
  });

  route(router, 'POST', '/logout', async (req: Request, res: Response) => {
    await destroySession(req);
    res.clearCookie('forja.sid');
    seeOther(res, '/login');
  });

}

/** 45 seconds, 2 minutes, 15 minutes. */
function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
