import { gitTarget } from './gitTarget.ts';

/** The SSH server git talks to for a repository: host as gitTarget reads it (lower case, no brackets), port 22 unless written. */
export interface SshEndpoint {
  host: string;
  port: number;
}

const SSH_SCHEMES = /^(ssh|git\+ssh|ssh\+git):\/\//i;

/**
 * Where git's ssh connects for `url`: `ssh://[user@]host[:port]/…` (and its `git+ssh`, `ssh+git`
 * spellings) or scp-like `[user@]host:path`, `[user@host:port]:path`; null for any other URL,
 * including one gitTarget refuses.
 */
export function sshEndpoint(url: string): SshEndpoint | null {
  const target = gitTarget(url);
  if (target.kind !== 'remote') return null;
  const scheme = SSH_SCHEMES.exec(url);
  if (scheme) {
    const rest = url.slice(scheme[0].length);
    const authority = rest.slice(0, rest.indexOf('/'));
    return { host: target.host, port: portOf(authority.slice(authority.lastIndexOf('@') + 1)) };
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) return null;
  // scp-like: only the bracketed form `[user@host:port]:path` carries a port.
  const bracket = url.startsWith('[') ? 0 : url.indexOf('@[') + 1;
  if (bracket <= 0 && !url.startsWith('[')) return { host: target.host, port: 22 };
  const inside = url.slice(bracket + 1, url.indexOf(']', bracket));
  const hostPort = inside.slice(inside.lastIndexOf('@') + 1);
  return { host: target.host, port: hostPort.split(':').length === 2 ? Number(hostPort.split(':')[1]) : 22 };
}

/** The port of `host[:port]` or `[v6][:port]` (gitTarget has checked its form). */
function portOf(hostPort: string): number {
  const port = hostPort.startsWith('[') ? hostPort.slice(hostPort.indexOf(']') + 1) : hostPort.includes(':') ? hostPort.slice(hostPort.indexOf(':')) : '';
  return port.length > 1 ? Number(port.slice(1)) : 22;
}

/** `host` for port 22, `[host]:port` otherwise: how ssh names an endpoint in known_hosts and in its messages. */
export function endpointName({ host, port }: SshEndpoint): string {
  return port === 22 ? host : `[${host}]:${port}`;
}
