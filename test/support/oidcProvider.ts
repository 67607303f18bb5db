import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An account at the test provider. `emailOnlyInUserinfo` mimics providers that keep the ID token thin. */
export interface TestAccount {
  email: string;
  emailVerified?: boolean;
  emailOnlyInUserinfo?: boolean;
}

/** A real OpenID provider (`oidc-provider`) on 127.0.0.1 with one confidential client that must use PKCE. */
export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by the login typed into the provider's form. */
  accounts: Map<string, TestAccount>;
  /** Registers the client with its one redirect URI; until then the provider answers 503 (web's port comes later). */
  registerClient(redirectUri: string): Promise<void>;
  /**
   * Plays the browser at the provider: opens `authorizationUrl`, submits the login form as `login`
   * (or cancels it) and returns the URL the provider sends the browser back to.
   */
  signIn(authorizationUrl: string, login: string, options?: { cancel?: boolean }): Promise<URL>;
  stop(): Promise<void>;
}

// oidc-provider ships no types; the variable specifier keeps tsc from looking for them, and these
// interfaces name the little this file uses.
interface Grant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  Grant: { new (owner: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
}
interface GrantContext {
  oidc: { provider: ProviderInstance; client: { clientId: string }; session: { accountId: string; grantIdFor(clientId: string): string | undefined } };
}
const oidcProviderModule = 'oidc-provider';

async function createProvider(issuer: string, redirectUri: string, secret: string, accounts: Map<string, TestAccount>): Promise<ProviderInstance> {
  const { default: Provider } = (await import(oidcProviderModule)) as { default: new (issuer: string, configuration: object) => ProviderInstance };
  const signingKey = { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' };
  return new Provider(issuer, {
    clients: [{ client_id: 'forja', client_secret: secret, redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_basic', response_types: ['code'], grant_types: ['authorization_code'] }],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: true } },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Like most company providers, put the granted claims in the ID token, not only in userinfo.
    conformIdTokenClaims: false,
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: (use: string) => ({
          sub: id,
          name: id,
          ...(account.emailOnlyInUserinfo && use === 'id_token' ? {} : { email: account.email, email_verified: account.emailVerified ?? true }),
        }),
      };
    },
    // A first-party client: consent is implied, so the flow is login form → back to Forja.
    loadExistingGrant: async (ctx: GrantContext) => {
      const { provider, client, session } = ctx.oidc;
      const existing = session.grantIdFor(client.clientId);
      if (existing) return provider.Grant.find(existing);
      const grant = new provider.Grant({ accountId: session.accountId, clientId: client.clientId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
}

/** Cookies by name for one origin; enough for the provider's interaction and session cookies. */
function cookieJar() {
  const cookies = new Map<string, string>();
  return {
    header: () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    take(response: Response) {
      for (const line of response.headers.getSetCookie()) {
        const [name = '', value = ''] = (line.split(';')[0] ?? '').split('=');
        if (value) cookies.set(name, value);
        else cookies.delete(name);
      }
    },
  };
}

/** Starts the provider on a free port of 127.0.0.1; the client is registered once web listens. */
export async function startIdentityProvider(): Promise<TestIdentityProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientSecret = randomBytes(24).toString('base64url');
  const accounts = new Map<string, TestAccount>();

  return {
    issuer,
    clientId: 'forja',
    clientSecret,
    accounts,
    async registerClient(redirectUri) {
      handler = (await createProvider(issuer, redirectUri, clientSecret, accounts)).callback();
    },
    async signIn(authorizationUrl, login, options = {}) {
      const jar = cookieJar();
      const call = async (url: URL, init: RequestInit = {}) => {
        const response = await fetch(url, { ...init, redirect: 'manual', headers: { cookie: jar.header(), ...init.headers }, signal: AbortSignal.timeout(5000) });
        jar.take(response);
        const location = response.headers.get('location');
        if (!location) throw new Error(`the provider answered ${response.status} at ${url.pathname}: ${(await response.text()).slice(0, 300)}`);
        return new URL(location, url);
      };
      const interaction = await call(new URL(authorizationUrl));
      let next = options.cancel
        ? await call(new URL(`${interaction.pathname}/abort`, issuer))
        : await call(interaction, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ prompt: 'login', login, password: 'any' }) });
      // The provider resumes the authorization on its own origin, then sends the browser away.
      for (let hops = 0; next.origin === issuer; hops++) {
        if (hops === 5) throw new Error(`the provider kept redirecting to itself (${next.href})`);
        next = await call(next);
      }
      return next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Web's settings for signing in through `idp`, for `startWebPlatform`; `overrides` win. */
export function oidcSettings(idp: TestIdentityProvider, overrides: Record<string, string> = {}): Record<string, string> {
  return { FORJA_OIDC_ISSUER: idp.issuer, FORJA_OIDC_CLIENT_ID: idp.clientId, FORJA_OIDC_CLIENT_SECRET: idp.clientSecret, FORJA_OIDC_ALLOWED_DOMAINS: 'example.com', ...overrides };
}
