/**
 * Projects group a customer's instances; each has a name, a slug, an optional git repository and
 * a push hook token. The token is HMAC-SHA256 under FORJA_WEBHOOK_SECRET of the slug and the
 * project's `webhookNonce` (services/shared/auth/webhookToken.ts): a random value chosen when the
 * project is created and again at each rotation, so a rotated or recreated project gets a new
 * token. The nonce alone gives no token (the secret never enters the database), so it may live in
 * events and read models like the slug; projects created before it existed have none until rotated.
 */

/** A host key an SSH server presented (`fingerprint` is `SHA256:…`, `publicKey` the base64 blob). */
export interface HostKey {
  keyType: string;
  publicKey: string;
  fingerprint: string;
}

/** The keys a git host presented at its first contact, kept per project (its own known_hosts). */
export interface PinnedHost {
  host: string;
  port: number;
  keys: HostKey[];
}

export type ProjectEvent =
  | { type: 'ProjectCreated'; data: { slug: string; name: string; webhookNonce?: string } }
  | { type: 'ProjectRepositorySet'; data: { slug: string; gitRepo: string } }
  | { type: 'ProjectWebhookRotated'; data: { slug: string; webhookNonce: string } }
  | { type: 'ProjectSshKeyAdded'; data: { slug: string; keyId: number; name: string; fingerprint: string } }
  | { type: 'ProjectSshKeyRemoved'; data: { slug: string; keyId: number } }
  | { type: 'ProjectHostKeyPinned'; data: { slug: string } & PinnedHost }
  | { type: 'ProjectHostKeyForgotten'; data: { slug: string; host: string; port: number } }
  | { type: 'ProjectDeleted'; data: { slug: string; name: string } };

export type ProjectState =
  | { status: 'none' }
  | { status: 'deleted'; name: string }
  | { status: 'live'; slug: string; name: string; gitRepo: string | null; sshKeyIds: number[]; hostKeys: PinnedHost[] };

export const initialProjectState = (): ProjectState => ({ status: 'none' });

export function evolveProject(state: ProjectState, event: ProjectEvent): ProjectState {
  switch (event.type) {
    case 'ProjectCreated':
      return { status: 'live', slug: event.data.slug, name: event.data.name, gitRepo: null, sshKeyIds: [], hostKeys: [] };
    case 'ProjectRepositorySet':
      return state.status === 'live' ? { ...state, gitRepo: event.data.gitRepo } : state;
    case 'ProjectWebhookRotated':
      return state;
    case 'ProjectSshKeyAdded':
      return state.status === 'live' ? { ...state, sshKeyIds: [...state.sshKeyIds.filter((id) => id !== event.data.keyId), event.data.keyId] } : state;
    case 'ProjectSshKeyRemoved':
      return state.status === 'live' ? { ...state, sshKeyIds: state.sshKeyIds.filter((id) => id !== event.data.keyId) } : state;
    case 'ProjectHostKeyPinned': {
      if (state.status !== 'live') return state;
      const { host, port, keys } = event.data;
      return { ...state, hostKeys: [...state.hostKeys.filter((pin) => !samePlace(pin, { host, port })), { host, port, keys }] };
    }
    case 'ProjectHostKeyForgotten':
      return state.status === 'live' ? { ...state, hostKeys: state.hostKeys.filter((pin) => !samePlace(pin, event.data)) } : state;
    case 'ProjectDeleted':
      return { status: 'deleted', name: event.data.name };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const projectStream = (slug: string): string => `project-${slug}`;

/** One SSH server: host names compare case-insensitively, as ssh compares them in known_hosts. */
export const samePlace = (a: { host: string; port: number }, b: { host: string; port: number }): boolean => a.host.toLowerCase() === b.host.toLowerCase() && a.port === b.port;

/** `host` or `host:port` (port 22 is left out), as pages show an SSH server. */
export const placeName = ({ host, port }: { host: string; port: number }): string => (port === 22 ? host : `${host}:${port}`);

/** The slug of a name: lower case, accents dropped, runs of other characters as one `-`, at most 48 characters. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
}

/** Names compare trimmed, case- and space-insensitively: "Acme  SA" duplicates "acme sa". */
export function sameName(a: string, b: string): boolean {
  const fold = (name: string) => name.trim().replace(/\s+/g, ' ').toLocaleLowerCase('es');
  return fold(a) === fold(b);
}

const SHELL_METACHARACTERS = /[\s;&|`$(){}<>\\'"!*?[\]#~]/;

/**
 * A URL carrying a secret: a password (`ssh://user:pw@…`, `https://user:pw@…`, scp-like
 * `user:pw@host:path`), or anything before `@` of an http(s) URL, where it can only be a token. A
 * user name alone (`git@host:path`, `ssh://git@host/…`) is no secret and stays allowed.
 */
const CREDENTIALS = [/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i, /^https?:\/\/[^/]*@/i, /^[^/@:]+:[^/@]*@[^/]*:/];

/**
 * A repository URL we will hand to git: `ssh://…`, scp-like `user@host:path`, `https://…` or
 * `file:///…`, with no character a shell would interpret. Returns why not, or null when fine.
 */
export function gitUrlProblem(url: string): string | null {
  if (url.length > 500) return 'the URL is longer than 500 characters';
  if (SHELL_METACHARACTERS.test(url)) return 'the URL contains spaces or shell metacharacters';
  if (url.startsWith('-')) return 'the URL may not start with -';
  if (CREDENTIALS.some((pattern) => pattern.test(url))) return 'put credentials in an SSH key, not in the URL: every viewer sees the repository URL';
  if (/^ssh:\/\/[^/@]+@[^/]+\/.+$/.test(url) || /^ssh:\/\/[^/]+\/.+$/.test(url)) return null;
  if (/^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/].*$/.test(url)) return null;
  if (/^https:\/\/[A-Za-z0-9.-]+(:\d+)?\/.+$/.test(url)) return null;
  if (/^file:\/\/\/.+$/.test(url)) return null;
  return 'use an ssh (ssh://host/repo.git or git@host:repo.git), https (https://host/repo.git) or file (file:///path/repo.git) URL';
}
