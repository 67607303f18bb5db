import { posix } from 'node:path';
import ipaddr from 'ipaddr.js';
import { gitTarget } from './gitTarget.ts';

/**
 * Which repositories git may read for an instance. A repository URL is a developer's input, and
 * git runs on the platform's machines: a local one could be any repository there (Forja's own),
 * a host on the private network a service to probe. So local repositories come only from the
 * folders an operator lists, and private, loopback and link-local hosts only when listed.
 */
export interface GitAccess {
  /** Absolute, normalized folders local repositories (`file://` or a path) must be inside; empty = none. */
  fileRoots: readonly string[];
  /** Host names, addresses and CIDR ranges git may reach although they are not public (lower case). */
  allowHosts: readonly string[];
}

/** The settings (config.schema.ts), comma-separated. Throws naming the setting for a malformed range. */
export function gitAccessFrom(settings: { FORJA_GIT_FILE_ROOTS?: string | undefined; FORJA_GIT_ALLOW_HOSTS?: string | undefined }): GitAccess {
  const list = (value: string | undefined) => (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);
  const fileRoots = list(settings.FORJA_GIT_FILE_ROOTS).map((root) => {
    if (!root.startsWith('/')) throw new Error(`configuration: FORJA_GIT_FILE_ROOTS takes absolute folders, not ${root}`);
    const normalized = posix.normalize(root);
    return normalized === '/' ? normalized : normalized.replace(/\/+$/, '');
  });
  const allowHosts = list(settings.FORJA_GIT_ALLOW_HOSTS).map((host) => {
    const entry = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
    if (entry.includes('/') && !ipaddr.isValidCIDR(entry)) throw new Error(`configuration: FORJA_GIT_ALLOW_HOSTS has a malformed address range: ${host}`);
    return entry;
  });
  return { fileRoots, allowHosts };
}

const HOW_TO_ALLOW = 'an operator can allow it with FORJA_GIT_ALLOW_HOSTS';

/** Names that mean this machine whatever DNS says (RFC 6761, and Debian's /etc/hosts). */
const THIS_MACHINE = /^(localhost|localhost\.localdomain|ip6-localhost|ip6-loopback)$|\.localhost$/;
/** A host made of numbers (decimal, octal, hex) is an address to the resolver, however odd its form. */
const NUMERIC_HOST = /^(0x[0-9a-f]*|\d+)(\.(0x[0-9a-f]*|\d+))*$/;

/**
 * Why git may not read `url`, judged from the URL alone (no file system, no DNS); null when it
 * may. The executor checks again with the real folder and the addresses a name resolves to.
 */
export function gitAccessProblem(url: string, access: GitAccess): string | null {
  const target = gitTarget(url);
  switch (target.kind) {
    case 'refused':
      return target.reason;
    case 'local':
      return localRepositoryProblem(target.path, access);
    case 'remote':
      return hostProblem(target.host, access);
  }
}

/** Why a local repository at the absolute `path` may not be read; null when it is inside a listed folder. */
export function localRepositoryProblem(path: string, access: GitAccess): string | null {
  if (access.fileRoots.length === 0) return 'local repositories (file:// or a path) are off on this platform: an operator can allow folders with FORJA_GIT_FILE_ROOTS';
  const inside = access.fileRoots.some((root) => root === '/' || path === root || path.startsWith(`${root}/`));
  return inside ? null : `${path} is outside the folders local repositories may come from (FORJA_GIT_FILE_ROOTS)`;
}

/** Why git may not reach `host` (a name or an address as written in a URL); null when it may, or when only resolving it can tell. */
export function hostProblem(host: string, access: GitAccess): string | null {
  if (hostListedByName(host, access)) return null;
  if (THIS_MACHINE.test(host)) return `git may not reach ${host}: it is this machine; ${HOW_TO_ALLOW}`;
  if (hostIsAddress(host)) {
    if (!ipaddr.isValid(host)) return `${host} is neither a host name nor an address`;
    return addressProblem(host, access, host);
  }
  return null;
}

/** Why git may not reach `address` (what `host` is or resolves to); null for a public unicast address or a listed one. */
export function addressProblem(address: string, access: GitAccess, host: string): string | null {
  const ip = ipaddr.process(address);
  if (listed(ip, access)) return null;
  const range = ip.range();
  if (range === 'unicast') return null;
  const what = host === address ? 'it is' : 'it resolves to';
  return `git may not reach ${host}: ${what} ${RANGE_WORDS[range] ?? `a ${range} address, not a public one`}; ${HOW_TO_ALLOW}`;
}

/** True for an address (a numeric host in any form the resolver takes, or IPv6), false for a name only DNS can place. */
export function hostIsAddress(host: string): boolean {
  return host.includes(':') || NUMERIC_HOST.test(host);
}

/** True when an operator listed `host` by name: it is reached whatever it resolves to. */
export function hostListedByName(host: string, access: GitAccess): boolean {
  return access.allowHosts.includes(host);
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address (this machine)',
  private: 'a private address',
  uniqueLocal: 'a private address',
  linkLocal: 'a link-local address',
  unspecified: 'an unspecified address (this machine)',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
};

function listed(ip: ipaddr.IPv4 | ipaddr.IPv6, access: GitAccess): boolean {
  return access.allowHosts.some((entry) => {
    try {
      if (entry.includes('/')) {
        const [range, bits] = ipaddr.parseCIDR(entry);
        return range.kind() === ip.kind() && ip.match(range, bits);
      }
      if (!ipaddr.isValid(entry)) return false;
      const allowed = ipaddr.process(entry);
      return allowed.kind() === ip.kind() && allowed.toNormalizedString() === ip.toNormalizedString();
    } catch {
      return false;
    }
  });
}
