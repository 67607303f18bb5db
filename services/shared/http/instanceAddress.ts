/**
 * The ERP router's addresses: `<slug>.<domain>` names an instance. One home for both directions,
 * so the link web shows is exactly what the router answers.
 */

/** An instance slug as a DNS label: lowercase letters, digits and inner hyphens. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** The instance slug a `Host` header names under `domain` (any port), or null when it names none. */
export function slugFromHost(host: string | undefined, domain: string): string | null {
  if (!host) return null;
  // A Host is `name[:port]` or `[v6]:port`; only names can carry a slug.
  const name = host.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const suffix = `.${domain.toLowerCase()}`;
  if (!name.endsWith(suffix)) return null;
  const slug = name.slice(0, -suffix.length);
  return LABEL.test(slug) ? slug : null;
}

/**
 * Where people open an instance through the router: on `localhost` the router's own port (browsers
 * resolve `*.localhost` to loopback); any other domain is served by a TLS proxy in front, on 443.
 */
export function instanceAddress(slug: string, domain: string, routerPort: number): string {
  return domain === 'localhost' ? `http://${slug}.localhost:${routerPort}/` : `https://${slug}.${domain}/`;
}
