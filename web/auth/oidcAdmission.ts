/** The claims Forja reads from the identity provider (ID token, or userinfo when the token has no e-mail). */
export interface EmailClaims {
  email?: unknown;
  email_verified?: unknown;
}

/** Who may come in through the identity provider, decided before the control-plane hears of them. */
export type Admission =
  | { kind: 'admitted'; email: string }
  | { kind: 'noDomainsConfigured' }
  | { kind: 'noEmail' }
  | { kind: 'unverified'; email: string }
  | { kind: 'domainRefused'; email: string; domain: string };

/**
 * FORJA_OIDC_ALLOWED_DOMAINS as a list of lower-case domains. Unset means nobody: an identity
 * provider such as Google vouches for anyone with an account, so Forja never admits "everyone"
 * by default; the administrator names the company's domains.
 */
export function allowedDomains(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((domain) => domain.trim().toLowerCase())
    .filter(Boolean);
}

const EMAIL = /^[^@\s]+@([^@\s]+)$/;

/**
 * Admits an e-mail whose domain is exactly one of `allowed` (case-insensitive; a subdomain is a
 * different domain and must be listed itself). `email_verified: false` is refused because the
 * provider then lets anyone claim any address; a provider that omits the claim is trusted, as
 * most company providers only issue addresses they own. Some providers send the flag as a string.
 */
export function admit(claims: EmailClaims, allowed: readonly string[]): Admission {
  if (allowed.length === 0) return { kind: 'noDomainsConfigured' };
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  const domain = EMAIL.exec(email)?.[1]?.toLowerCase();
  if (!domain) return { kind: 'noEmail' };
  if (claims.email_verified === false || claims.email_verified === 'false') return { kind: 'unverified', email };
  if (!allowed.includes(domain)) return { kind: 'domainRefused', email, domain };
  return { kind: 'admitted', email };
}
