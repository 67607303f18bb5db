import ipaddr from 'ipaddr.js';
import { addressProblem, hostIsAddress, hostListedByName, hostProblem, type GitAccess } from '../git/gitAccess.ts';

/**
 * Host names, addresses and CIDR ranges (lower case, no brackets, no final dot) a download may
 * reach although they are not public: FORJA_PULL_ALLOW_HOSTS, parsed by `pullSettingsFrom`.
 */
export type PullAllowList = readonly string[];

const HOW_TO_ALLOW = 'an operator can allow it with FORJA_PULL_ALLOW_HOSTS';

/**
 * Where clouds answer with the machine's credentials. They are link-local, shared or private
 * anyway; they are named so that a listed range (169.254.0.0/16) or a listed host name resolving
 * there does not open them: only the address itself, listed, does.
 */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254'].map((address) => ipaddr.parse(address).toNormalizedString()));

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address (this machine)',
  unspecified: 'an unspecified address (this machine)',
  private: 'a private address',
  uniqueLocal: 'a private (unique-local) address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
};

/**
 * Why `url` may not be downloaded, judged from the URL alone (no DNS); null when it may. Only
 * http(s); credentials in the URL are allowed (shown only through `displayUrl`). The host is read
 * as WHATWG URL reads it — the same parse the download connects with — so `0x7f.1` is 127.0.0.1.
 * The executor checks again with the addresses the name resolves to (`resolveAndCheck`).
 */
export function pullUrlProblem(url: string, allow: PullAllowList): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `only http:// and https:// URLs can be downloaded, not ${parsed.protocol}//`;
  return pullHostProblem(parsed.hostname, allow);
}

/** Why a download may not reach `host` (as a URL writes it); null when it may, or when only resolving it can tell. */
export function pullHostProblem(host: string, allow: PullAllowList): string | null {
  const name = normalizeHost(host);
  if (!name) return 'the URL names no host';
  if (hostIsAddress(name) && ipaddr.isValid(name)) return pullAddressProblem(name, allow, name);
  // gitAccess knows which names mean this machine and which numbers are addresses; its wording is git's.
  if (hostProblem(name, access(allow)) === null) return null;
  return hostIsAddress(name) ? `${name} is neither a host name nor an address` : `downloads may not reach ${name}: it is this machine; ${HOW_TO_ALLOW}`;
}

/**
 * Why a download may not reach `address`, which `host` is or resolves to; null for a public
 * unicast address, a listed one, or any but a metadata address when `host` is listed by name.
 */
export function pullAddressProblem(address: string, allow: PullAllowList, host: string): string | null {
  const ip = ipaddr.process(address);
  const what = normalizeHost(host) === address ? 'it is' : 'it resolves to';
  if (METADATA_ADDRESSES.has(ip.toNormalizedString())) {
    const listed = allow.some((entry) => ipaddr.isValid(entry) && ipaddr.process(entry).toNormalizedString() === ip.toNormalizedString());
    return listed ? null : `downloads may not reach ${host}: ${what} a cloud metadata address; only listing that very address in FORJA_PULL_ALLOW_HOSTS allows it`;
  }
  if (hostListedByName(normalizeHost(host), access(allow))) return null;
  if (addressProblem(address, access(allow), host) === null) return null;
  const range = ip.range();
  return `downloads may not reach ${host}: ${what} ${RANGE_WORDS[range] ?? `a ${range} address, not a public one`}; ${HOW_TO_ALLOW}`;
}

/** `[::1]` → `::1`, `Files.Example.` → `files.example`: the form allow-list entries are kept in. */
export function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

function access(allow: PullAllowList): GitAccess {
  return { fileRoots: [], allowHosts: allow };
}
