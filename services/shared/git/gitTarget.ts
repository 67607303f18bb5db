import { posix } from 'node:path';

/**
 * What a repository URL makes git open, read the way git reads it: a folder on this machine
 * (`file://…` or a plain path), or a host on the network (`ssh://`, scp-like `user@host:path`,
 * `git://`, `http(s)://`). Anything git would read some other way — a remote helper
 * (`ext::sh -c …`), another scheme, a host written in an odd form — is refused, so the answer
 * never differs from what git does.
 */
export type GitTarget =
  /** `path`: absolute and normalized (`..` resolved, %-escapes of a file URL decoded, as git does). */
  | { kind: 'local'; path: string }
  /** `host`: lower case, without brackets or a final dot; an address stays as written (`0x7f.1`). */
  | { kind: 'remote'; host: string }
  | { kind: 'refused'; reason: string };

const SCHEMES = new Set(['ssh', 'git+ssh', 'ssh+git', 'git', 'http', 'https', 'file']);
/** Letters, digits, `-` and `_` in dot-separated labels: no %-escape, no IDN, nothing a resolver would rewrite. */
const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?$/;
const IPV6 = /^[0-9a-f:.]+$/;
const PORT = /^(?::\d{1,5})?$/;

const refused = (reason: string): GitTarget => ({ kind: 'refused', reason });

export function gitTarget(url: string): GitTarget {
  // git hands `<transport>::<address>` to a remote helper (ext:: runs a command).
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(url)) return refused('remote helper URLs (<transport>::<address>) are not allowed');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  if (scheme) {
    const name = scheme[1]!.toLowerCase();
    if (!SCHEMES.has(name)) return refused(`git may not use ${name}:// URLs`);
    const rest = url.slice(scheme[0].length);
    if (name === 'file') return fileUrl(rest);
    const end = rest.search(/[/?#\\]/);
    if (end === -1 || rest[end] !== '/') return refused('the URL names no repository path after its host');
    const authority = rest.slice(0, end);
    return remote(authority.slice(authority.lastIndexOf('@') + 1));
  }
  // git's own rule: no colon, or a slash before the first colon, is a local path; otherwise scp-like.
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  if (colon === -1 || (slash !== -1 && slash < colon)) return localPath(url);
  return scpLike(url);
}

/** `file:///path` (git also takes `file://localhost/…`; Forja only the plain form). %-escapes are decoded, as git does. */
function fileUrl(rest: string): GitTarget {
  if (!rest.startsWith('/')) return refused('a file URL must be file:///absolute/path');
  try {
    return localPath(decodeURIComponent(rest));
  } catch {
    return refused('the file URL has a broken %-escape');
  }
}

function localPath(path: string): GitTarget {
  if (!path.startsWith('/')) return refused('a local repository needs an absolute path');
  const normalized = posix.normalize(path);
  return { kind: 'local', path: normalized.length > 1 ? normalized.replace(/\/+$/, '') : normalized };
}

/** `[user@]host:path`, `[user@][v6]:path`, `[user@host:port]:path`, as git's host_end() reads them. */
function scpLike(url: string): GitTarget {
  const at = url.indexOf('@[');
  const bracket = url.startsWith('[') ? 0 : at === -1 ? -1 : at + 1;
  if (bracket === -1) {
    const userHost = url.slice(0, url.indexOf(':'));
    return remote(userHost.slice(userHost.lastIndexOf('@') + 1));
  }
  const close = url.indexOf(']', bracket);
  if (url.slice(0, bracket).includes(':') || close === -1 || url[close + 1] !== ':') return refused('the URL has a misplaced [ or ]');
  const inside = url.slice(bracket + 1, close);
  const hostPort = inside.slice(inside.lastIndexOf('@') + 1);
  // Two colons or more make an IPv6 address; one separates a port.
  return remote(hostPort.split(':').length > 2 ? `[${hostPort}]` : hostPort);
}

/** The host of `host[:port]` or `[v6][:port]`. */
function remote(hostPort: string): GitTarget {
  let host: string;
  let port: string;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    host = hostPort.slice(1, close === -1 ? undefined : close).toLowerCase();
    port = close === -1 ? 'unclosed' : hostPort.slice(close + 1);
    if (!IPV6.test(host) || !host.includes(':')) return refused(`not an IPv6 address between brackets: ${hostPort}`);
  } else {
    const colon = hostPort.indexOf(':');
    host = (colon === -1 ? hostPort : hostPort.slice(0, colon)).toLowerCase();
    port = colon === -1 ? '' : hostPort.slice(colon);
    if (!host) return refused('the URL names no host');
    if (!HOST_NAME.test(host)) return refused(`not a host name or address git may use: ${hostPort}`);
  }
  if (!PORT.test(port)) return refused(`not a port: ${port}`);
  return { kind: 'remote', host: host.replace(/\.$/, '') };
}
