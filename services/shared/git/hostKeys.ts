import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { GitSourceError } from './gitCommand.ts';
import { endpointName } from './sshEndpoint.ts';

/** One public host key of an SSH server. */
export interface HostKey {
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`… */
  keyType: string;
  /** The key blob, base64 as in known_hosts. */
  publicKey: string;
  /** `SHA256:…` as `ssh-keygen -l` prints it. */
  fingerprint: string;
}

/** The keys Forja trusts for one host and port. */
export interface PinnedHost {
  host: string;
  port: number;
  keys: HostKey[];
}

const KEY_TYPE = /^[a-z0-9][a-z0-9@.-]*$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** A host as sshEndpoint gives it: a name or an IPv4 or IPv6 address, nothing a known_hosts line would read as a pattern or marker. */
const HOST = /^([a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?|[0-9a-f:.]+)$/;

/** The key made of a known_hosts-style type and base64 blob; throws `invalid` unless the blob really is a key of that type. */
export function hostKey(keyType: string, publicKey: string): HostKey {
  const blob = BASE64.test(publicKey) ? Buffer.from(publicKey, 'base64') : Buffer.alloc(0);
  const length = blob.length >= 4 ? blob.readUInt32BE(0) : -1;
  const typeInBlob = length >= 0 && length <= blob.length - 4 ? blob.subarray(4, 4 + length).toString('latin1') : '';
  if (!KEY_TYPE.test(keyType) || typeInBlob !== keyType) throw new GitSourceError('invalid', `not an SSH public key of type ${JSON.stringify(keyType)}`);
  return { keyType, publicKey, fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}` };
}

export interface ScanOptions {
  signal?: AbortSignal;
  /** For the whole scan; default 15 s. */
  timeoutMs?: number;
}

const SCAN_TIMEOUT_MS = 15_000;

/**
 * The host keys the SSH server at `host`:`port` presents, from `ssh-keyscan` (run without a
 * shell, bounded); empty when none answered (refused, nothing listening, no such name). Rejects
 * `timeout` or `aborted` when the bound or the signal stops it.
 */
export async function scanHostKeys(host: string, port: number, options: ScanOptions = {}): Promise<HostKey[]> {
  if (!HOST.test(host) || !Number.isInteger(port) || port < 1 || port > 65535) throw new GitSourceError('invalid', `not a host and port to scan: ${host} ${port}`);
  const timeoutMs = options.timeoutMs ?? SCAN_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  // ssh-keyscan's own limit comes later, so that a silent server ends as a timeout, not as "no key".
  const perConnection = String(Math.ceil(timeoutMs / 1000) + 1);
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile('ssh-keyscan', ['-T', perConnection, '-p', String(port), '--', host], { signal, maxBuffer: 1024 * 1024 }, (error, out) => {
      if (signal.aborted) {
        const timedOut = timeout.aborted && !options.signal?.aborted;
        reject(new GitSourceError(timedOut ? 'timeout' : 'aborted', `reading the SSH host keys of ${endpointName({ host, port })} ${timedOut ? 'timed out' : 'was aborted'}`));
      } else if (error && typeof error.code !== 'number') {
        reject(new GitSourceError('failed', `cannot run ssh-keyscan: ${error.message}`));
      } else {
        // ssh-keyscan exits 1 when a host did not answer; what it printed is what it got.
        resolve(out);
      }
    });
  });
  return parseScan(stdout);
}

/** `ssh-keyscan` lines (`host type base64`), comments skipped, each key once. */
function parseScan(text: string): HostKey[] {
  const keys = new Map<string, HostKey>();
  for (const line of text.split('\n')) {
    const [, keyType, publicKey] = line.trim().split(/\s+/);
    if (line.startsWith('#') || !keyType || !publicKey) continue;
    try {
      keys.set(`${keyType} ${publicKey}`, hostKey(keyType, publicKey));
    } catch {
      // A line ssh-keyscan would not print; ssh would not accept the key either.
    }
  }
  return [...keys.values()];
}

/** known_hosts lines for `pins`, each host written as ssh looks it up (`host`, or `[host]:port` off port 22). */
export function knownHostsText(pins: readonly PinnedHost[]): string {
  return pins
    .flatMap((pin) => {
      if (!HOST.test(pin.host)) throw new GitSourceError('invalid', `not a host for known_hosts: ${JSON.stringify(pin.host)}`);
      return pin.keys.map((key) => {
        hostKey(key.keyType, key.publicKey);
        return `${endpointName(pin)} ${key.keyType} ${key.publicKey}\n`;
      });
    })
    .join('');
}

/** Preferred first, as ssh negotiates: a type missing here counts after all of these. */
const PREFERENCE = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];

export type HostKeyComparison = { kind: 'match' } | { kind: 'changed'; pinned: string; presented: string };

/**
 * Whether a server that `presented` these keys is the one whose `pinned` keys Forja trusts: every
 * key type both have must have the same key (a server may add a type). With no type in common,
 * or a differing key, `changed` names the fingerprints of that type, or of each side's preferred one.
 */
export function compareHostKeys(pinned: readonly HostKey[], presented: readonly HostKey[]): HostKeyComparison {
  const common = pinned.filter((key) => presented.some((other) => other.keyType === key.keyType));
  for (const key of preferredFirst(common)) {
    const theirs = presented.filter((other) => other.keyType === key.keyType);
    if (!theirs.some((other) => other.fingerprint === key.fingerprint)) return { kind: 'changed', pinned: key.fingerprint, presented: theirs[0]!.fingerprint };
  }
  if (common.length > 0) return { kind: 'match' };
  return { kind: 'changed', pinned: preferredFirst(pinned)[0]?.fingerprint ?? 'no key', presented: preferredFirst(presented)[0]?.fingerprint ?? 'no key' };
}

function preferredFirst(keys: readonly HostKey[]): HostKey[] {
  const rank = (key: HostKey) => (PREFERENCE.includes(key.keyType) ? PREFERENCE.indexOf(key.keyType) : PREFERENCE.length);
  return [...keys].sort((a, b) => rank(a) - rank(b));
}

/** git was not let near a server whose host key is not the pinned one. */
export class HostKeyChangedError extends GitSourceError {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly pinnedFingerprint: string,
    readonly presentedFingerprint: string,
  ) {
    super(
      'host_key_changed',
      `the SSH host key of ${endpointName({ host, port })} changed: Forja pinned ${pinnedFingerprint}, the server now presents ${presentedFingerprint}. ` +
        `Nothing was fetched, as the server may be an impostor; if the server's key really changed, an admin can forget the pinned key on the project page`,
    );
  }
}
