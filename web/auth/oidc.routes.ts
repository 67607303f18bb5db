import type { Router } from 'express';
import type { WebContext } from '../context.ts';

/** Identity-provider sign-in; being written (see issue 3). */
export function oidcRoutes(_router: Router, _ctx: WebContext): void {
  throw new Error('identity-provider login is not available yet');
}
