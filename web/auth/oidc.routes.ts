import type { Request, Response, Router } from 'express';
import * as client from 'openid-client';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { CommandRefused } from '../controlPlaneClient.ts';
import { render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { saveSession } from '../http/session.ts';
import { signIn } from './login.routes.ts';
import { admit, allowedDomains, type Admission, type EmailClaims } from './oidcAdmission.ts';
import { classifyGrantError, identityProviderClient, IdentityProviderUnavailable, SignInNotVerified, type IdentityProviderClient } from './oidcClient.ts';
import { safeNext } from './safeNext.ts';

const CALLBACK_PATH = '/auth/idp/callback';
const NOT_VERIFIED = 'The sign-in could not be verified: it expired, was already used, or did not start in this browser. Start again.';
const UNAVAILABLE = 'The identity provider cannot be reached right now. Try again in a moment, or sign in with your password.';

/**
 * Where the provider sends the browser back. FORJA_PUBLIC_URL when set (needed behind a proxy that
 * does not forward the host and scheme); otherwise the origin this very request came to, so the
 * callback lands on the host the session cookie belongs to. A forged Host header only spoils the
 * forger's own sign-in: the provider accepts registered redirect URIs only.
 */
function callbackUrl(ctx: WebContext, req: Request): string {
  if (ctx.settings.FORJA_PUBLIC_URL) return `${ctx.settings.FORJA_PUBLIC_URL}${CALLBACK_PATH}`;
  const host = req.host;
  if (!host || !/^[\w.-]+(:\d+)?$|^\[[\da-f:.]+\](:\d+)?$/i.test(host)) throw new HttpError(400, 'This request has no usable Host header.');
  return `${req.protocol}://${host}${CALLBACK_PATH}`;
}

/** A page of the sign-in flow that went wrong, with a way to start again. */
function refuse(ctx: WebContext, req: Request, res: Response, status: number, title: string, message: string): void {
  res.status(status);
  render(ctx, req, res, 'auth/idpError.njk', { status, title, message });
}

function refuseAdmission(ctx: WebContext, req: Request, res: Response, admission: Exclude<Admission, { kind: 'admitted' }>): void {
  ctx.logger.info({ reason: admission.kind, email: 'email' in admission ? admission.email : undefined }, 'identity-provider sign-in refused');
  switch (admission.kind) {
    case 'noDomainsConfigured':
      return refuse(ctx, req, res, 403, 'Not set up yet', 'Sign-in through the identity provider is switched on, but no e-mail domain is allowed yet. An administrator must set FORJA_OIDC_ALLOWED_DOMAINS (for example example.com) and restart web.');
    case 'noEmail':
      return refuse(ctx, req, res, 403, 'No e-mail address', 'The identity provider did not give a usable e-mail address, so Forja cannot tell who you are.');
    case 'unverified':
      return refuse(ctx, req, res, 403, 'E-mail not verified', `The identity provider has not verified ${admission.email}. Verify it there, then sign in again.`);
    case 'domainRefused':
      return refuse(ctx, req, res, 403, 'Domain not allowed', `Accounts at ${admission.domain} may not sign in to Forja. Use your company account, or ask an administrator.`);
  }
}

/** The e-mail claims: from the ID token, or from userinfo for providers that keep the ID token thin. */
async function emailClaims(config: client.Configuration, tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>): Promise<EmailClaims> {
  const idToken = tokens.claims();
  if (!idToken) throw new SignInNotVerified('no ID token');
  if (typeof idToken['email'] === 'string') return { email: idToken['email'], email_verified: idToken['email_verified'] };
  return client.fetchUserInfo(config, tokens.access_token, idToken.sub);
}

/** Exchanges the code (PKCE, state and nonce checked by openid-client) and returns the e-mail claims. */
async function verifiedClaims(provider: IdentityProviderClient, req: Request, callback: string, pending: { state: string; nonce: string; codeVerifier: string }) {
  const config = await provider.configuration();
  const current = new URL(callback);
  current.search = new URL(req.originalUrl, 'http://callback.invalid').search;
  try {
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    return await emailClaims(config, tokens);
  } catch (error) {
    throw classifyGrantError(error);
  }
}

/**
 * `/auth/idp/login` and `/auth/idp/callback`: the authorization-code flow with PKCE, state and
 * nonce, which hands the verified e-mail to the control-plane (unknown users become viewers,
 * known ones keep their role, deactivated ones are refused) and then signs the user in.
 */
export function oidcRoutes(router: Router, ctx: WebContext): void {
  const provider = identityProviderClient(ctx.settings, ctx.logger);
  const allowed = allowedDomains(ctx.settings.FORJA_OIDC_ALLOWED_DOMAINS);
  if (allowed.length === 0) ctx.logger.warn('FORJA_OIDC_ALLOWED_DOMAINS is unset: identity-provider sign-in refuses everyone until it is set');

  /** Pages for the errors this flow expects; anything else goes on to the generic error page. */
  const handled = (handler: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    try {
      await handler(req, res);
    } catch (error) {
      if (error instanceof IdentityProviderUnavailable) return refuse(ctx, req, res, 503, 'Identity provider unavailable', UNAVAILABLE);
      if (!(error instanceof SignInNotVerified)) throw error;
      ctx.logger.warn({ err: error.cause ?? error }, 'identity-provider sign-in not verified');
      refuse(ctx, req, res, 400, 'Sign-in not verified', NOT_VERIFIED);
    }
  };

  route(router, 'GET', '/auth/idp/login', handled(async (req, res) => {
    const next = safeNext(req.query['next']);
    if (res.locals['user']) return seeOther(res, next);
    // Nobody could be admitted: say so before sending anyone through the provider.
    if (allowed.length === 0) return refuseAdmission(ctx, req, res, { kind: 'noDomainsConfigured' });
    const config = await provider.configuration();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const codeVerifier = client.randomPKCECodeVerifier();
    // A second sign-in started in another tab replaces this one; only the latest can finish.
    req.session.oidc = { state, nonce, codeVerifier, next };
    await saveSession(req);
    const authorization = client.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl(ctx, req),
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    res.redirect(303, authorization.href);
  }));

  route(router, 'GET', CALLBACK_PATH, handled(async (req, res) => {
    // `?.`: mounted without the session middleware (as the authorization walk does), this is just an unverifiable callback.
    const pending = req.session?.oidc;
    if (pending) {
      // Single use: whatever happens next, this state cannot be presented again.
      delete req.session.oidc;
      await saveSession(req);
    }
    const { error, state } = req.query;
    if (typeof error === 'string') {
      ctx.logger.info({ error, description: req.query['error_description'] }, 'identity provider answered with an error');
      const message = error === 'access_denied' ? 'The sign-in was cancelled, or the identity provider refused it.' : `The identity provider could not sign you in (${error.slice(0, 60)}).`;
      return refuse(ctx, req, res, 401, 'Not signed in', `${message} You can try again or sign in with your password.`);
    }
    if (!pending || typeof state !== 'string' || state !== pending.state) throw new SignInNotVerified('missing or mismatched state');

    const admission = admit(await verifiedClaims(provider, req, callbackUrl(ctx, req), pending), allowed);
    if (admission.kind !== 'admitted') return refuseAdmission(ctx, req, res, admission);
    try {
      const user = await ctx.controlPlane.signInFromIdentityProvider(admission.email);
      await signIn(req, user.user_id, user.email);
      seeOther(res, pending.next);
    } catch (refusal) {
      if (!(refusal instanceof CommandRefused) || ![403, 422].includes(refusal.status)) throw refusal;
      if (refusal.status === 422) return refuseAdmission(ctx, req, res, { kind: 'noEmail' });
      refuse(ctx, req, res, 403, 'Account deactivated', `This account is deactivated. Ask an administrator to reactivate ${admission.email}.`);
    }
  }));
}
