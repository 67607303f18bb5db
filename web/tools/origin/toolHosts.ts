import { createHash } from 'node:crypto';
import { dbAdminSlug } from '../dbAdminTool.ts';
import { slugOf } from '../instanceTools/instanceWebTools.ts';

/** DNS allows 63 characters in one label. */
const MAX_LABEL = 63;

/** A tool's kind, its host's first word (`mail`, `monitoring`, `dbadmin`, `editor`, `code`): no `-` in it. */
export function toolKind(prefix: string): string {
  if (prefix === '/mails') return 'mail';
  const instanceTool = /^\/instances\/:slug\/([a-z]+)\/proxy$/.exec(prefix);
  return instanceTool ? instanceTool[1]! : prefix.replace(/^\//, '');
}

/** Whether a tool's paths name one instance (database admin, notebook, code editor). */
export const perInstance = (prefix: string): boolean => prefix !== '/mails' && prefix !== '/monitoring';

/** The instance a tool path names (`/dbadmin/<slug>/…`, `/instances/<slug>/code/proxy/…`), if any. */
export function pathSlug(prefix: string, path: string): string | undefined {
  if (!perInstance(prefix)) return undefined;
  return (prefix === '/dbadmin' ? dbAdminSlug(path) : slugOf(path)) ?? undefined;
}

/**
 * The host label of a tool (`mail`, `code-<slug>`). A slug too long for one DNS label keeps its
 * start and gets a hash of the whole: `--` never occurs in a slug, so no short slug has the same label.
 */
export function toolLabel(kind: string, slug?: string): string {
  if (slug === undefined) return kind;
  const label = `${kind}-${slug}`;
  if (label.length <= MAX_LABEL) return label;
  const hash = createHash('sha256').update(slug).digest('hex').slice(0, 10);
  const start = slug.slice(0, MAX_LABEL - kind.length - 1 - 2 - hash.length).replace(/-+$/, '');
  return `${kind}-${start}--${hash}`;
}

/** The tools' domain and where its hosts answer. */
export interface ToolsOrigin {
  domain: string;
  port: number;
}

/** `*.localhost` resolves to loopback and is served on the tools port; any other domain by a TLS proxy on 443. */
export const localDomain = (domain: string): boolean => domain === 'localhost' || domain.endsWith('.localhost');

/** The origin a tool host answers at (`http://mail.tools.localhost:8084`, `https://mail.tools.example.com`). */
export function toolOrigin(host: string, tools: ToolsOrigin): string {
  return localDomain(tools.domain) ? `http://${host}:${tools.port}` : `https://${host}`;
}

/** The host name (no port) of a tool of `kind` for `slug`. */
export const toolHost = (kind: string, slug: string | undefined, tools: ToolsOrigin): string => `${toolLabel(kind, slug)}.${tools.domain}`;

/** The host name a request's Host header names under the tools domain (port dropped), or null. */
export function requestHost(host: string | undefined, domain: string): string | null {
  const name = (host ?? '').trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const label = name.slice(0, -domain.length - 1);
  return name.endsWith(`.${domain}`) && /^[a-z0-9]+(?:-{1,2}[a-z0-9]+)*$/.test(label) ? name : null;
}
