import { randomUUID } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { findUserByEmail, type UserRow } from '#projections/users/users.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { HttpError } from '#shared/http/errors.ts';
import { PasswordChecksBusy } from '#shared/secrets/scryptSlots.ts';
import type { ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody } from '../http/validate.ts';

export function userOut(user: UserRow) {
  return { user_id: user.user_id, email: user.email, role: user.role, active: user.active };
}

/** Sign-in for web: the form login checks passwords here, so web never reads schema `secrets`. */
export function identityInternal(router: Router, ctx: ControlPlaneContext): void {
  route(router, ctx, 'POST', '/internal/auth/verify', validateBody('api/Credentials.v1.json'), async (req: Request, res: Response) => {
    const { email, password } = req.body as { email: string; password: string };
    // Web throttles guesses per client before calling (it knows the client); here only the hashing is bounded.
    const result = await ctx.identity.authenticate(email, password).catch((error: unknown) => {
      if (error instanceof PasswordChecksBusy) throw new HttpError(503, 'too many sign-ins are being checked at once: try again in a moment', { 'Retry-After': '1' });
      throw error;
    });
    if (result.ok) return void res.json(userOut(result.user));
    if (result.reason === 'inactive') throw new HttpError(403, 'this account is deactivated: ask an admin to reactivate it');
    throw new HttpError(401, 'wrong e-mail or password');
  });

  /**
   * An identity-provider sign-in with a verified e-mail: known users keep their role, new ones
   * become viewers, deactivated ones are refused.
   */
  route(router, ctx, 'POST', '/internal/users/oidc', validateBody('api/OidcUser.v1.json'), async (req: Request, res: Response) => {
    const { email } = req.body as { email: string };
    let user = await findUserByEmail(ctx.readModel, email);
    if (!user) {
      const id = randomUUID();
      const metadata = { correlationId: id, causationId: id, actor: 'system', at: new Date().toISOString(), via: 'oidc' };
      try {
        const registered = await ctx.identity.register({ email, role: 'viewer', source: 'oidc' }, metadata);
        await ctx.waitForProjections(registered.lastGlobalPosition, ['users']);
      } catch (error) {
        // Two first sign-ins at once: the other one registered the user.
        if (!(error instanceof DomainError)) throw error;
      }
      user = await findUserByEmail(ctx.readModel, email);
    }
    if (!user) throw new HttpError(503, 'the new account is not visible yet; sign in again in a moment');
    if (!user.active) throw new HttpError(403, 'this account is deactivated: ask an admin to reactivate it');
    res.json(userOut(user));
  });
}
