import * as client from 'openid-client';
import { ConfigError } from '#shared/config/config.ts';
import type { Logger } from '#shared/log.ts';
import type { WebSettings } from '../web.settings.ts';

/** The identity provider could not be reached, or did not answer like one. Shown as a 503 page. */
export class IdentityProviderUnavailable extends Error {
  override readonly name = 'IdentityProviderUnavailable';
}

/** The authorization response or the tokens failed a check (state, PKCE, nonce, signature, code). Shown as a 400 page. */
export class SignInNotVerified extends Error {
  override readonly name = 'SignInNotVerified';
}

/** The relying-party side of the identity provider: its discovered configuration, fetched once. */
export interface IdentityProviderClient {
  /** Discovers the provider on first use and caches it; a failed discovery is retried on the next call. */
  configuration(): Promise<client.Configuration>;
}

const DISCOVERY_TIMEOUT_SECONDS = 10;

/**
 * Reads the OIDC settings once, at start-up, so a missing client id or secret stops web with one
 * clear line instead of failing on the first sign-in.
 */
export function identityProviderClient(settings: WebSettings, logger: Logger): IdentityProviderClient {
  const { FORJA_OIDC_ISSUER: issuer, FORJA_OIDC_CLIENT_ID: clientId, FORJA_OIDC_CLIENT_SECRET: secret } = settings;
  if (!issuer || !clientId || !secret) {
    throw new ConfigError('configuration: FORJA_OIDC_CLIENT_ID and FORJA_OIDC_CLIENT_SECRET are required when FORJA_OIDC_ISSUER is set');
  }
  const issuerUrl = new URL(issuer);
  // openid-client refuses plain HTTP; a local or test provider is the only reason to allow it.
  const insecure = issuerUrl.protocol === 'http:';
  if (insecure && !['127.0.0.1', 'localhost', '[::1]'].includes(issuerUrl.hostname)) {
    logger.warn({ issuer }, 'FORJA_OIDC_ISSUER uses plain HTTP: tokens travel unencrypted; use https outside a lab');
  }
  let discovered: Promise<client.Configuration> | undefined;
  return {
    configuration() {
      discovered ??= client
        .discovery(issuerUrl, clientId, undefined, client.ClientSecretBasic(secret), {
          execute: insecure ? [client.allowInsecureRequests] : [],
          timeout: DISCOVERY_TIMEOUT_SECONDS,
        })
        .catch((error: unknown) => {
          // Not cached: the provider may be back on the next attempt.
          discovered = undefined;
          logger.error({ err: error, issuer }, 'identity provider discovery failed');
          throw new IdentityProviderUnavailable(`discovery of ${issuer} failed`, { cause: error });
        });
      return discovered;
    },
  };
}

/**
 * Sorts what openid-client throws during the code exchange: the provider being down is a 503 for
 * the user to retry; anything the provider or the tokens said wrong is a failed verification.
 */
export function classifyGrantError(error: unknown): Error {
  if (error instanceof TypeError && error.message === 'fetch failed') return new IdentityProviderUnavailable('token endpoint unreachable', { cause: error });
  if (error instanceof client.ClientError && (error.code === 'OAUTH_TIMEOUT' || error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM')) {
    return new IdentityProviderUnavailable(error.message, { cause: error });
  }
  if (error instanceof client.ResponseBodyError && error.status >= 500) return new IdentityProviderUnavailable(error.message, { cause: error });
  if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError || error instanceof client.ClientError) {
    return new SignInNotVerified(error.message, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}
