import type { Request, Response, Router } from 'express';
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

/** `/login` (form), `/logout`. Passwords are checked by the control-plane; web never reads secrets. */
export function loginRoutes(router: Router, ctx: WebContext): void {
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
    try {
      const user = await ctx.controlPlane.verifyPassword(email, String(body.password));
      await signIn(req, user.user_id, user.email);
      seeOther(res, next);
    } catch (error) {
      if (!(error instanceof CommandRefused) || ![401, 403, 422].includes(error.status)) throw error;
      again(error.status === 403 ? 403 : 401, error.status === 403 ? 'This account is deactivated. Ask an administrator to reactivate it.' : 'Wrong e-mail or password.');
    }
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
