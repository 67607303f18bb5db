import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { generateKey, readPastedKey, SshKeyMaterialError, type SshKeyMaterial } from '#shared/ssh/keyMaterial.ts';

/** A key made by ssh-keygen the way a user would have made it, as the text they would paste. */
function userKey(dir: string, name: string, args: string[]): { text: string; fingerprint: string } {
  const file = join(dir, name);
  execFileSync('ssh-keygen', ['-q', ...args, '-f', file]);
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`], { encoding: 'utf8' }).split(' ')[1] ?? '';
  return { text: readFileSync(file, 'utf8'), fingerprint };
}

async function refusal(pasted: string, passphrase?: string): Promise<string> {
  try {
    await readPastedKey(pasted, passphrase, 'forja:test');
  } catch (error) {
    expect(error).to.be.instanceOf(SshKeyMaterialError);
    const message = (error as Error).message;
    // Never a piece of what was pasted in the answer.
    for (const line of pasted.split('\n').filter((l) => l.length > 20)) expect(message).not.to.include(line);
    return message;
  }
  throw new Error('the key was accepted');
}

/** ssh reads it unencrypted: `ssh-keygen -y -P ''` opens it. */
function opensWithoutPassphrase(material: SshKeyMaterial, dir: string): string {
  const file = join(dir, `check-${Math.random().toString(36).slice(2)}`);
  execFileSync('sh', ['-c', `umask 077; cat > ${file}`], { input: material.privateKey });
  return execFileSync('ssh-keygen', ['-y', '-P', '', '-f', file], { encoding: 'utf8' }).trim();
}

describe('SSH key material (ssh-keygen)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'forja-keytest-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('generates an ed25519 key with its public key, fingerprint and an unencrypted OpenSSH private key', async () => {
    const key = await generateKey('ed25519', 'forja:deploy');
    expect(key).to.include({ keyType: 'ed25519', bits: 256 });
    expect(key.fingerprint).to.match(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(key.publicKey).to.match(/^ssh-ed25519 AAAA\S+ forja:deploy$/);
    expect(key.privateKey).to.match(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    expect(opensWithoutPassphrase(key, dir).split(' ').slice(0, 2).join(' ')).to.equal(key.publicKey.split(' ').slice(0, 2).join(' '));
  });

  it('generates RSA keys of 4096 bits and ECDSA P-256 keys on request', async () => {
    expect(await generateKey('rsa', 'c')).to.include({ keyType: 'rsa', bits: 4096 });
    expect(await generateKey('ecdsa', 'c')).to.include({ keyType: 'ecdsa', bits: 256 });
  });

  it('takes a pasted OpenSSH ed25519 key and keeps its fingerprint', async () => {
    const pasted = userKey(dir, 'ed', ['-t', 'ed25519', '-N', '']);
    const key = await readPastedKey(pasted.text, undefined, 'forja:pasted');
    expect(key).to.include({ keyType: 'ed25519', fingerprint: pasted.fingerprint });
  });

  it('takes PEM keys (PKCS#1 RSA, PKCS#8 ECDSA) with Windows line ends and re-writes them as OpenSSH', async () => {
    const rsa = userKey(dir, 'rsa-pem', ['-t', 'rsa', '-b', '2048', '-m', 'PEM', '-N', '']);
    expect(rsa.text).to.match(/^-----BEGIN RSA PRIVATE KEY-----/);
    const fromRsa = await readPastedKey(rsa.text.replace(/\n/g, '\r\n'), undefined, 'c');
    expect(fromRsa).to.include({ keyType: 'rsa', bits: 2048, fingerprint: rsa.fingerprint });
    expect(fromRsa.privateKey).to.match(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    const ecdsa = userKey(dir, 'ec-pkcs8', ['-t', 'ecdsa', '-m', 'PKCS8', '-N', '']);
    expect(await readPastedKey(ecdsa.text, undefined, 'c')).to.include({ keyType: 'ecdsa', fingerprint: ecdsa.fingerprint });
  });

  it('opens a passphrase-protected key with its passphrase and stores it without one', async () => {
    const pasted = userKey(dir, 'locked', ['-t', 'ed25519', '-N', 'correct horse']);
    const key = await readPastedKey(pasted.text, 'correct horse', 'c');
    expect(key.fingerprint).to.equal(pasted.fingerprint);
    expect(opensWithoutPassphrase(key, dir)).to.match(/^ssh-ed25519 /);
    const pem = userKey(dir, 'locked-pem', ['-t', 'rsa', '-b', '2048', '-m', 'PEM', '-N', 'pw-pem-5']);
    expect((await readPastedKey(pem.text, 'pw-pem-5', 'c')).fingerprint).to.equal(pem.fingerprint);
  });

  it('refuses a protected key without its passphrase, or with a wrong one, saying which', async () => {
    const pasted = userKey(dir, 'locked2', ['-t', 'ed25519', '-N', 'right']);
    expect(await refusal(pasted.text)).to.equal('this key is protected by a passphrase: give it in the passphrase field');
    expect(await refusal(pasted.text, 'wrong')).to.equal('the passphrase does not open this key');
  });

  it('refuses RSA keys under 2048 bits and DSA keys', async () => {
    expect(await refusal(userKey(dir, 'small', ['-t', 'rsa', '-b', '1024', '-N', '']).text)).to.match(/has 1024 bits; at least 2048/);
    expect(await refusal(userKey(dir, 'dsa', ['-t', 'dsa', '-N', '']).text)).to.match(/^DSA keys are refused/);
  });

  it('refuses a public key, a PuTTY key, a truncated key and random text with what was wrong', async () => {
    const pasted = userKey(dir, 'pub', ['-t', 'ed25519', '-N', '']);
    expect(await refusal(readFileSync(join(dir, 'pub.pub'), 'utf8'))).to.match(/^this is a public key/);
    expect(await refusal('PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n')).to.match(/PuTTY key/);
    const truncated = pasted.text.split('\n').slice(0, 3).join('\n');
    expect(await refusal(truncated)).to.match(/^this is not a private key: paste the whole key/);
    expect(await refusal('hello')).to.match(/^this is not a private key/);
    const damaged = pasted.text.replace(/^(-----BEGIN OPENSSH PRIVATE KEY-----\n)(.{10})/, '$1AAAAAAAAAA');
    expect(await refusal(damaged)).to.match(/^ssh-keygen cannot read this private key/);
    expect(await refusal('x'.repeat(20_000))).to.match(/no private key is longer/);
  });
});
