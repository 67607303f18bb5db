import { pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const derive = promisify(pbkdf2);

/** passlib's "adapted base64": `.` for `+`, no padding (passlib/utils/binary.py, ab64_encode). */
const ab64Decode = (text: string): Buffer => Buffer.from(text.replaceAll('.', '+'), 'base64');
const ab64Encode = (bytes: Buffer): string => bytes.toString('base64').replaceAll('+', '.').replace(/=+$/, '');

const PBKDF2_SHA512 = /^\$pbkdf2-sha512\$(\d+)\$([A-Za-z0-9./]*)\$([A-Za-z0-9./]+)$/;

/** The rounds odoo/tools/config.py's crypt_context hashes a new master password with. */
const ROUNDS = 600_000;

/** A new master password as `config.set_admin_password` stores it: passlib's pbkdf2_sha512 (odoo/tools/config.py). */
export async function hashMasterPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, ROUNDS, 64, 'sha512');
  return `$pbkdf2-sha512$${ROUNDS}$${ab64Encode(salt)}$${ab64Encode(hash)}`;
}

/**
 * `config.verify_admin_password` (odoo/tools/config.py): an empty or false stored value refuses
 * every password; a `$pbkdf2-sha512$` hash is checked with PBKDF2; anything else is passlib's
 * deprecated `plaintext` scheme, compared as it is. A malformed hash is an error, as in passlib.
 */
export async function verifyMasterPassword(stored: string | false, password: string): Promise<boolean> {
  if (!stored) return false;
  if (!stored.startsWith('$pbkdf2-sha512$')) return equal(Buffer.from(stored), Buffer.from(password));
  const parts = PBKDF2_SHA512.exec(stored);
  if (!parts) throw new Error('malformed pbkdf2_sha512 hash');
  const expected = ab64Decode(parts[3]!);
  const actual = await derive(password, ab64Decode(parts[2]!), Number(parts[1]), expected.length, 'sha512');
  return equal(actual, expected);
}

const equal = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);
