import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { normalizeHost, pullAddressProblem, pullHostProblem, type PullAllowList } from './pullUrl.ts';

/** Every address a host name resolves to (resolving only; nothing connects). */
export type HostLookup = (host: string) => Promise<string[]>;

/** A host and the addresses a connection to it may use: all of them passed the checks. */
export interface CheckedHost {
  /** As normalized for the allow list (`::1`, not `[::1]`). */
  host: string;
  addresses: readonly { address: string; family: 4 | 6 }[];
}

/** `refused`: the host or one of its addresses may not be reached; `unresolved`: DNS gave no address. */
export class HostCheckError extends Error {
  override readonly name = 'HostCheckError';
  constructor(
    readonly kind: 'refused' | 'unresolved',
    message: string,
  ) {
    super(message);
  }
}

export const lookupAll: HostLookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Resolves `host` once and checks every address it gets (pullAddressProblem): one refused address
 * refuses the host, since the connection could go to any of them. An address host is checked as
 * it is, without DNS. Connect with `pinnedLookup(checked)`, never by the name again: a second DNS
 * answer could differ from the checked one (rebinding).
 */
export async function resolveAndCheck(host: string, allow: PullAllowList, lookup: HostLookup = lookupAll): Promise<CheckedHost> {
  const name = normalizeHost(host);
  const problem = pullHostProblem(name, allow);
  if (problem) throw new HostCheckError('refused', problem);
  const family = isIP(name);
  if (family === 4 || family === 6) return { host: name, addresses: [{ address: name, family }] };
  let resolved: string[];
  try {
    resolved = await lookup(name);
  } catch (error) {
    throw new HostCheckError('unresolved', `cannot resolve ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const addresses: { address: string; family: 4 | 6 }[] = [];
  for (const address of resolved) {
    const kind = isIP(address);
    if (kind !== 4 && kind !== 6) throw new HostCheckError('unresolved', `${name} resolved to ${JSON.stringify(address)}, not an address`);
    const refused = pullAddressProblem(address, allow, name);
    if (refused) throw new HostCheckError('refused', refused);
    addresses.push({ address, family: kind });
  }
  if (addresses.length === 0) throw new HostCheckError('unresolved', `cannot resolve ${name}: no address`);
  return { host: name, addresses };
}

/**
 * A `lookup` for node:net, http and https that answers with the checked addresses only, whatever
 * name it is asked for, so the connection goes where the check looked and DNS is not asked twice.
 */
export function pinnedLookup(checked: CheckedHost): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const wanted = family === 4 || family === 6 ? checked.addresses.filter((entry) => entry.family === family) : checked.addresses;
    const first = wanted[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error(`${checked.host} has no checked IPv${String(family)} address`);
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
    } else if (options.all) {
      callback(null, wanted.map((entry) => ({ ...entry })));
    } else {
      callback(null, first.address, first.family);
    }
  };
}
