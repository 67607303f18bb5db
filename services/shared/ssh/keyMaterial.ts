import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Key types Forja accepts: what OpenSSH still trusts by default and needs no hardware token. */
export type SshKeyType = 'ed25519' | 'ecdsa' | 'rsa';
export const SSH_KEY_TYPES: readonly SshKeyType[] = ['ed25519', 'ecdsa', 'rsa'];

/** RSA below this is refused (NIST SP 800-131A; GitHub and GitLab refuse shorter deploy keys too). */
export const MIN_RSA_BITS = 2048;
/** No private key is near this long (an RSA 16384-bit key is ~12 KiB). */
const MAX_PASTED_LENGTH = 16 * 1024;

/** A private key Forja can hand to ssh: unencrypted OpenSSH text, with what may be shown of it. */
export interface SshKeyMaterial {
  /** OpenSSH format, no passphrase: sealed in schema `secrets`, never shown, logged or put in an event. */
  privateKey: string;
  /** `ssh-ed25519 AAAA… forja:<name>`: what a git host takes as a deploy key. */
  publicKey: string;
  keyType: SshKeyType;
  bits: number;
  /** `SHA256:…`, as `ssh-keygen -l` and the git hosts print it. */
  fingerprint: string;
}

/**
 * A pasted key refused, saying what was wrong. The message never quotes the pasted text: it may be
 * a private key that was almost right.
 */
export class SshKeyMaterialError extends Error {
  override readonly name = 'SshKeyMaterialError';
}

/**
 * Reads a pasted private key (OpenSSH or PEM: PKCS#1, PKCS#8, SEC1), opens it with `passphrase`
 * when it has one, and returns it re-written as unencrypted OpenSSH text. Debian's `ssh-keygen`
 * does the parsing: what it accepts is exactly what the ssh that git runs will accept.
 *
 * The passphrase reaches ssh-keygen as an argument (it reads one from a terminal only), so for
 * the few milliseconds it runs it is visible to the process list of this machine.
 */
export async function readPastedKey(pasted: string, passphrase: string | undefined, comment: string): Promise<SshKeyMaterial> {
  const text = `${pasted.replace(/\r\n?/g, '\n').trim()}\n`;
  refuseObviousMistakes(text);
  return inScratch(async (file) => {
    await writeFile(file, text, { mode: 0o600 });
    const opened = await keygen(['-y', '-P', passphrase ?? '', '-f', file]);
    if (!opened.ok) throw new SshKeyMaterialError(openFailure(opened.stderr, passphrase));
    // Re-written in place as unencrypted OpenSSH text (PEM in, OpenSSH out).
    const rewritten = await keygen(['-p', '-P', passphrase ?? '', '-N', '', '-f', file]);
    if (!rewritten.ok) throw new SshKeyMaterialError('ssh-keygen could not re-write this key without its passphrase');
    return describe(file, comment);
  });
}

/** A new key pair made by `ssh-keygen`: ed25519 unless asked; RSA gets 4096 bits, ECDSA P-256. */
export async function generateKey(keyType: SshKeyType, comment: string): Promise<SshKeyMaterial> {
  const size = keyType === 'rsa' ? ['-b', '4096'] : keyType === 'ecdsa' ? ['-b', '256'] : [];
  return inScratch(async (file) => {
    const made = await keygen(['-q', '-t', keyType, ...size, '-N', '', '-C', comment, '-f', file]);
    if (!made.ok) throw new Error(`ssh-keygen could not generate a ${keyType} key: ${made.stderr.trim()}`);
    return describe(file, comment);
  });
}

/** Mistakes people make when pasting, told apart before ssh-keygen gives a less helpful answer. */
function refuseObviousMistakes(text: string): void {
  if (text.length > MAX_PASTED_LENGTH) throw new SshKeyMaterialError(`the pasted text is ${text.length} characters long; no private key is longer than ${MAX_PASTED_LENGTH}`);
  if (/^(ssh-(ed25519|rsa|dss)|ecdsa-sha2-|sk-)\S* AAAA/.test(text)) {
    throw new SshKeyMaterialError('this is a public key: paste the private key (it begins with -----BEGIN), or generate a key instead');
  }
  if (/^PuTTY-User-Key-File-/.test(text)) throw new SshKeyMaterialError('this is a PuTTY key: export it as an OpenSSH key first (puttygen key.ppk -O private-openssh -o key)');
  if (/-----BEGIN SSH2 ENCRYPTED PRIVATE KEY-----/.test(text)) throw new SshKeyMaterialError('this is an SSH.com (SECSH) key: convert it to OpenSSH format first (ssh-keygen -i)');
  if (!/^-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----\n[\s\S]+\n-----END ([A-Z0-9]+ )*PRIVATE KEY-----\n$/.test(text)) {
    throw new SshKeyMaterialError('this is not a private key: paste the whole key, from its -----BEGIN … PRIVATE KEY----- line to its -----END … PRIVATE KEY----- line');
  }
}

function openFailure(stderr: string, passphrase: string | undefined): string {
  if (/incorrect passphrase|bad decrypt|wrong passphrase/i.test(stderr)) {
    return passphrase ? 'the passphrase does not open this key' : 'this key is protected by a passphrase: give it in the passphrase field';
  }
  if (/invalid format|error in libcrypto|unsupported|not a key/i.test(stderr)) return 'ssh-keygen cannot read this private key: it is damaged or in a format OpenSSH does not know';
  return 'ssh-keygen cannot read this private key';
}

/** Type, size, fingerprint and public key of the (unencrypted) key in `file`; refuses the types we do not take. */
async function describe(file: string, comment: string): Promise<SshKeyMaterial> {
  const listed = await keygen(['-l', '-E', 'sha256', '-f', file]);
  // "256 SHA256:abc… comment (ED25519)"
  const parts = /^(\d+) (SHA256:[A-Za-z0-9+/]+) .*\(([A-Z0-9-]+)\)\s*$/.exec(listed.stdout.trim());
  if (!listed.ok || !parts) throw new SshKeyMaterialError('ssh-keygen cannot read this private key');
  const bits = Number(parts[1]);
  const keyType = typeOf(parts[3] ?? '');
  if (keyType === 'rsa' && bits < MIN_RSA_BITS) throw new SshKeyMaterialError(`this RSA key has ${bits} bits; at least ${MIN_RSA_BITS} are needed (better: an ed25519 key)`);
  const publicKey = await keygen(['-y', '-P', '', '-f', file]);
  if (!publicKey.ok) throw new SshKeyMaterialError('ssh-keygen cannot read this private key');
  const [algorithm, blob] = publicKey.stdout.trim().split(/\s+/);
  return { privateKey: await readFile(file, 'utf8'), publicKey: `${algorithm} ${blob} ${comment}`, keyType, bits, fingerprint: parts[2] ?? '' };
}

function typeOf(listedType: string): SshKeyType {
  if (listedType === 'ED25519') return 'ed25519';
  if (listedType === 'ECDSA') return 'ecdsa';
  if (listedType === 'RSA') return 'rsa';
  if (listedType === 'DSA') throw new SshKeyMaterialError('DSA keys are refused: OpenSSH turned them off as too weak; use an ed25519 key');
  if (listedType.endsWith('-SK')) throw new SshKeyMaterialError('security-key (-sk) keys need their hardware token at every use, which a server cannot have; use an ed25519 key');
  throw new SshKeyMaterialError(`${listedType} keys are not accepted; use ed25519, ECDSA or RSA (at least ${MIN_RSA_BITS} bits)`);
}

/** A private folder for one key file, removed afterwards whatever happens. */
async function inScratch<T>(use: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'forja-key-'));
  try {
    return await use(join(dir, 'key'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface KeygenResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** ssh-keygen without a shell, a terminal or an agent; bounded, since a bad key must never hang a request. */
function keygen(args: string[]): Promise<KeygenResult> {
  return new Promise((resolve, reject) => {
    execFile('ssh-keygen', args, { timeout: 30_000, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C' } }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new Error('ssh-keygen is not installed (Debian package openssh-client)'));
      resolve({ ok: !error, stdout, stderr });
    });
  });
}
