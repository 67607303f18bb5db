import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSourceError, type SshOptions } from './gitCommand.ts';
import { compareHostKeys, HostKeyChangedError, knownHostsText, scanHostKeys, type HostKey } from './hostKeys.ts';
import { endpointName, type SshEndpoint } from './sshEndpoint.ts';

/** A private key git's ssh may offer. */
export interface SshIdentity {
  /** For the reader only; never part of a file name. */
  name: string;
  /** OpenSSH or PEM text, without a passphrase. Never logged, never in an error. */
  privateKey: string;
}

/** Where a project's trusted host keys live. */
export interface HostKeyBook {
  pinned(host: string, port: number): readonly HostKey[] | undefined;
  /** Records a first contact's keys (the lead makes it append a ProjectHostKeyPinned event). */
  pin(host: string, port: number, keys: HostKey[]): Promise<void>;
}

export interface SshSessionOptions {
  signal?: AbortSignal;
  /** Bound of each host-key scan; default 15 s. */
  scanTimeoutMs?: number;
}

/**
 * Runs `use` with ssh options for git: `identities` written to a private folder (0700, files 0600),
 * and a known_hosts that holds only hosts `checkHost` has vouched for — a pinned host whose keys
 * still match, or a first contact, whose keys it pins in `book`. Since ssh then runs with
 * StrictHostKeyChecking=yes, a host nobody checked is refused by ssh itself. The folder is removed
 * when `use` ends, however it ends.
 */
export async function withSshSession<T>(identities: readonly SshIdentity[], book: HostKeyBook, use: (ssh: SshOptions) => Promise<T>, options: SshSessionOptions = {}): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'forja-ssh-'));
  try {
    const keyFiles: string[] = [];
    for (const [index, identity] of identities.entries()) {
      const text = identity.privateKey.replace(/\r\n?/g, '\n').trim();
      if (!text) throw new GitSourceError('invalid', `the SSH key ${JSON.stringify(identity.name)} has no private key text`);
      const file = join(dir, `key-${index + 1}`);
      // ssh refuses a key file without its final newline, and one others may read.
      await writeFile(file, `${text}\n`, { mode: 0o600, flag: 'wx' });
      keyFiles.push(file);
    }
    const knownHostsFile = join(dir, 'known_hosts');
    await writeFile(knownHostsFile, '', { mode: 0o600, flag: 'wx' });
    const checked = new Map<string, Promise<void>>();
    const checkHost = (target: SshEndpoint): Promise<void> => {
      const key = endpointName(target);
      let check = checked.get(key);
      if (!check) {
        check = vouchFor(target, book, knownHostsFile, options);
        checked.set(key, check);
      }
      return check;
    };
    return await use({ keyFiles, knownHostsFile, checkHost });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Scans `target`, compares with or pins its keys, and writes the trusted ones to known_hosts. */
async function vouchFor(target: SshEndpoint, book: HostKeyBook, knownHostsFile: string, options: SshSessionOptions): Promise<void> {
  const { host, port } = target;
  const presented = await scanHostKeys(host, port, { ...(options.signal ? { signal: options.signal } : {}), ...(options.scanTimeoutMs ? { timeoutMs: options.scanTimeoutMs } : {}) });
  if (presented.length === 0) {
    throw new GitSourceError('unreachable', `no SSH server answered at ${endpointName(target)}: check the repository's host name and port, and that the platform can reach it`);
  }
  const pinned = book.pinned(host, port);
  let trusted: readonly HostKey[];
  if (pinned && pinned.length > 0) {
    const comparison = compareHostKeys(pinned, presented);
    if (comparison.kind === 'changed') throw new HostKeyChangedError(host, port, comparison.pinned, comparison.presented);
    trusted = pinned;
  } else {
    await book.pin(host, port, presented);
    trusted = presented;
  }
  await appendFile(knownHostsFile, knownHostsText([{ host, port, keys: [...trusted] }]));
}
