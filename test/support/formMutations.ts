import fc from 'fast-check';
import { CONTROL_CHARACTERS, type RawBody } from './jsonMutations.ts';

/** A form's fields in order; a name may repeat, as on the wire. */
export type FormFields = Array<[string, string]>;

/** How a form is spoiled; sizes stay numbers until the body is built, so a counterexample prints small. */
export type FormMutation =
  | { kind: 'valid' }
  | { kind: 'control characters'; at: number; chars: string; position: number }
  | { kind: 'huge value'; at: number; bytes: number; char: string }
  | { kind: 'unknown fields'; fields: FormFields }
  | { kind: 'missing field'; at: number }
  | { kind: 'repeated field'; at: number; value: string }
  | { kind: 'raw text'; text: string }
  | { kind: 'content type'; contentType: string | null };

const controlText = fc.array(fc.constantFrom(...CONTROL_CHARACTERS), { minLength: 1, maxLength: 4 }).map((chars) => chars.join(''));

/** Bytes no form encoder makes: bad percent-escapes, overlong and surrogate UTF-8, stray separators, brackets. */
const RAW_FRAGMENTS = ['%', '%zz', '%E0%A4%A', '%00', '%C0%80', '%ED%A0%80', '%FF%FE', '&&&', '=', '==&=', 'a[b][c]=d', 'a[]=1&a[]=2', '+%2B+', '%u0041', 'name', 'name=', '=value', '%0D%0A'];

export const formMutation: fc.Arbitrary<FormMutation> = fc.oneof(
  { withCrossShrink: true },
  { weight: 3, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('control characters' as const), at: fc.nat(), chars: controlText, position: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('huge value' as const), at: fc.nat(), bytes: fc.constantFrom(1024 * 1024, 40_000, 3_000), char: fc.constantFrom('a', 'é', '\u0000', '😀') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unknown fields' as const), fields: fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', '_csrf', 'toString')), fc.string({ maxLength: 20 })), { minLength: 1, maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('missing field' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeated field' as const), at: fc.nat(), value: fc.string({ maxLength: 20 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('raw text' as const), text: fc.array(fc.constantFrom(...RAW_FRAGMENTS), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('&')) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('content type' as const),
      contentType: fc.constantFrom(null, 'text/plain', 'application/json', 'application/x-www-form-urlencoded; charset=utf-16', 'application/x-www-form-urlencoded; charset=bogus', 'multipart/form-data', 'application/octet-stream', ''),
    }),
  },
);

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate becomes U+FFFD's, as a browser sends it). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) out += /[A-Za-z0-9*._-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

const urlencoded = (fields: FormFields) => fields.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&');

/** The fields `mutation` makes of `fields`, and any raw text to append to the encoded form. */
function mutateFields(fields: FormFields, mutation: FormMutation): { fields: FormFields; raw: string } {
  const at = (index: number) => index % Math.max(1, fields.length);
  const replaced = (index: number, value: string): FormFields => fields.map((field, i) => (i === at(index) ? [field[0], value] : field));
  switch (mutation.kind) {
    case 'valid':
    case 'content type':
      return { fields, raw: '' };
    case 'control characters': {
      const value = fields[at(mutation.at)]?.[1] ?? '';
      const position = mutation.position % (value.length + 1);
      return { fields: fields.length ? replaced(mutation.at, value.slice(0, position) + mutation.chars + value.slice(position)) : [['x', mutation.chars]], raw: '' };
    }
    case 'huge value': {
      const huge = mutation.char.repeat(Math.ceil(mutation.bytes / Buffer.byteLength(mutation.char)));
      return { fields: fields.length ? replaced(mutation.at, huge) : [['x', huge]], raw: '' };
    }
    case 'unknown fields':
      return { fields: [...fields, ...mutation.fields], raw: '' };
    case 'missing field':
      return { fields: fields.filter((_, i) => i !== at(mutation.at)), raw: '' };
    case 'repeated field': {
      const name = fields[at(mutation.at)]?.[0] ?? 'x';
      return { fields: [...fields, [name, mutation.value]], raw: '' };
    }
    case 'raw text':
      return { fields, raw: mutation.text };
  }
}

/** The form as `application/x-www-form-urlencoded`, `csrf` (when any) first, as the forms put it. */
export function encodeForm(fields: FormFields, mutation: FormMutation): RawBody {
  const { fields: mutated, raw } = mutateFields(fields, mutation);
  const text = [urlencoded(mutated), raw].filter(Boolean).join('&');
  const headers: Record<string, string> = {};
  const contentType = mutation.kind === 'content type' ? mutation.contentType : 'application/x-www-form-urlencoded';
  if (contentType !== null) headers['content-type'] = contentType;
  return { body: Buffer.from(text, 'utf8'), headers };
}

/** A file part of a multipart form. */
export interface FilePart {
  field: string;
  filename: string;
  type: string;
  content: Buffer;
}

/** How a multipart body is broken, beyond its fields' mutations. */
export type MultipartDamage = 'none' | 'no closing boundary' | 'wrong boundary' | 'no boundary parameter' | 'part without name' | 'garbage part headers' | 'truncated' | 'many fields';

export const multipartDamage: fc.Arbitrary<MultipartDamage> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('none' as const) },
  { weight: 1, arbitrary: fc.constantFrom<MultipartDamage>('no closing boundary', 'wrong boundary', 'no boundary parameter', 'part without name', 'garbage part headers', 'truncated', 'many fields') },
);

/** The form as `multipart/form-data`: text fields in order, then the files, then `damage`. */
export function encodeMultipart(fields: FormFields, files: FilePart[], mutation: FormMutation, damage: MultipartDamage): RawBody {
  const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
  const { fields: mutated, raw } = mutateFields(fields, mutation);
  const parts: Buffer[] = [];
  const quoted = (text: string) => text.replace(/["\r\n]/g, (char) => encodeURIComponent(char));
  const all = damage === 'many fields' ? [...mutated, ...Array.from({ length: 40 }, (_, i): [string, string] => [`extra${i}`, 'x'])] : mutated;
  for (const [name, value] of all) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`));
  if (raw) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="raw"\r\n\r\n${raw}\r\n`));
  if (damage === 'part without name') parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\nnameless\r\n`));
  if (damage === 'garbage part headers') parts.push(Buffer.from(`--${boundary}\r\n\u0000: \u00ff\r\nContent-Disposition: ;;;\r\n\r\nx\r\n`));
  for (const file of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.filename)}"\r\nContent-Type: ${file.type}\r\n\r\n`));
    parts.push(file.content, Buffer.from('\r\n'));
  }
  if (damage !== 'no closing boundary' && damage !== 'truncated') parts.push(Buffer.from(`--${boundary}--\r\n`));
  let body = Buffer.concat(parts);
  if (damage === 'truncated') body = body.subarray(0, Math.floor(body.length / 2));
  const declared = damage === 'wrong boundary' ? 'otherboundary' : boundary;
  const contentType = mutation.kind === 'content type' && mutation.contentType !== 'multipart/form-data' ? mutation.contentType : damage === 'no boundary parameter' ? 'multipart/form-data' : `multipart/form-data; boundary=${declared}`;
  return { body, headers: contentType === null ? {} : { 'content-type': contentType } };
}
