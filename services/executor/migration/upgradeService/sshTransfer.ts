import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { startTool } from '../../database/toolProcess.ts';
import { UpgradeServiceError } from './upgradeServiceError.ts';

const exec = promisify(execFile);

/** The request's transfer files, in a folder only Forja (root) reads: the key is the request's, the known hosts its node's. */
export interface TransferFiles {
  /** The private key; `<key>.pub` beside it. */
  key: string;
  knownHosts: string;
}

export const transferFiles = (dir: string): TransferFiles => ({ key: join(dir, 'upgrade_ssh_key'), knownHosts: join(dir, 'upgrade_known_hosts') });

/**
 * The request's key pair, made once: the platform binds the request to the public key given at
 * `create`, so a resumed request needs the same key (the vendor's script says so when its key is lost).
 */
export async function transferKey(files: TransferFiles, comment: string): Promise<string> {
  if (!existsSync(files.key) || !existsSync(`${files.key}.pub`)) {
    await rm(files.key, { force: true });
    await rm(`${files.key}.pub`, { force: true });
    await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', files.key]);
  }
  return (await readFile(`${files.key}.pub`, 'utf8')).trim();
}

/** One rsync over SSH to the request's node: user and folder as the vendor's script uses them (`odoo`, `/data`) unless configured. */
export interface SshTarget {
  host: string;
  port: number;
  user: string;
  /** The node's folder for the request (`/data`). */
  path: string;
  /** The node's host keys as `transfer/start` gave them: nothing else is trusted. */
  knownHosts: string;
}

export interface TransferOptions {
  files: TransferFiles;
  log: Writable;
  signal?: AbortSignal | undefined;
  /** rsync's --timeout: a transfer silent this long fails (and is retried). */
  ioTimeoutS?: number;
}

/** The host part of `host[:port]`, as ssh wants it. */
export const hostOf = (hostUri: string) => hostUri.replace(/:\d+$/, '');

/**
 * Sends `local` (a file, or a directory's content) to `<path>/<name>` on the node. `--partial`
 * keeps what arrived so a retry sends only the rest; `--delete-after` as the script does (a
 * directory dump replaces an earlier attempt's).
 */
export async function uploadOverSsh(local: string, target: SshTarget, name: string, options: TransferOptions): Promise<void> {
  await rsync([...common(options), '--partial', '--delete-after', '--chmod=u+rwx,g+rwx,o+r', '-e', await sshCommand(target, options), local, `${remote(target)}/${name}`], `upload the dump to ${target.host}`, options);
}

/**
 * Fetches `names` (the dump, `filestore`, the report and the log; missing ones skipped, as the
 * script does) from the node into `into`.
 */
export async function downloadOverSsh(target: SshTarget, names: readonly string[], into: string, options: TransferOptions): Promise<void> {
  const sources = names.map((name) => `${remote(target)}/${name}`);
  await rsync([...common(options), '--partial', '--ignore-missing-args', '-e', await sshCommand(target, options), ...sources, `${into}/`], `download the upgraded database from ${target.host}`, options);
}

/**
 * `-rt`, not the script's `-a`: Forja runs as root, and `-a` would take the platform's owners,
 * modes, links and device files; without `-l`, `-p`, `-o`, `-g` and `-D` rsync skips links and
 * specials and every file is Forja's with ordinary modes.
 */
const common = (options: TransferOptions) => ['-r', '-t', `--timeout=${options.ioTimeoutS ?? 120}`];

const remote = (target: SshTarget) => `${target.user}@${target.host}:${target.path.replace(/\/+$/, '')}`;

/** rsync splits `-e` on spaces and honours single quotes: every path is quoted. */
const quoted = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

async function sshCommand(target: SshTarget, { files }: TransferOptions): Promise<string> {
  await writeFile(files.knownHosts, target.knownHosts.endsWith('\n') ? target.knownHosts : `${target.knownHosts}\n`, { mode: 0o600 });
  return [
    'ssh',
    '-F',
    '/dev/null',
    '-p',
    String(target.port),
    '-i',
    quoted(files.key),
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    `UserKnownHostsFile=${quoted(files.knownHosts)}`,
    '-o',
    'BatchMode=yes',
    '-o',
    'ConnectTimeout=30',
    '-o',
    'ServerAliveInterval=15',
  ].join(' ');
}

/** rsync's exit codes a new attempt can get past: the connection or the stream broke, a timeout. */
const TRANSIENT = new Set([10, 11, 12, 20, 23, 30, 35, 255]);

async function rsync(args: string[], what: string, { log, signal }: TransferOptions): Promise<void> {
  const stderr: string[] = [];
  const { exit } = startTool('rsync', args, { log, ...(signal ? { signal } : {}), onStderrLine: (line) => stderr.push(line) });
  const result = await exit;
  if (result.aborted) throw result.aborted;
  if (result.code === 0) return;
  if (result.spawnError) throw new UpgradeServiceError(`could not ${what}: rsync could not be started (${result.spawnError.message}; install rsync and openssh-client)`, 'protocol');
  const said = stderr.filter((line) => line.trim() !== '').slice(-4).join(' | ');
  const hostKey = stderr.some((line) => /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/.test(line));
  const kind = hostKey || !TRANSIENT.has(result.code ?? -1) ? 'protocol' : 'transport';
  const why = hostKey ? "the node's host key is not the one the platform announced" : said || `rsync exited with ${result.code ?? result.signal}`;
  throw new UpgradeServiceError(`could not ${what}: ${why} (rsync exited with ${result.code ?? result.signal})`, kind);
}
