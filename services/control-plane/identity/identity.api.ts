import type { Request, Response, Router } from 'express';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { userOut } from './identity.internal.ts';

/** `/api/v1/me`: who the credentials belong to, to check a client's setup. */
export function identityApi(router: Router, ctx: ControlPlaneContext): void {
  route(router, ctx, 'GET', '/api/v1/me', (_req: Request, res: Response) => void res.json(userOut(actingUser(res.locals))));
}
