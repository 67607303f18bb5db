import fc from 'fast-check';
import { percentEncode } from './formMutations.ts';
import { CONTROL_CHARACTERS } from './jsonMutations.ts';

/** Segments no encoder makes, sent as they are: bad escapes, dot segments, encoded slashes and NULs, overlong UTF-8. */
const RAW_SEGMENTS = ['%', '%zz', '%E0%A4%A', '%00', '%2F', '%2e%2e', '..', '.', '%C0%AF', '%FF', '%ED%A0%80', '%25', '%u0041', '~', '%20', '+', '-', '--', 'a-', '-a', 'A', '0'];

/** Free text, with the characters that break things mixed in. */
const nastyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.array(fc.oneof(fc.constantFrom(...CONTROL_CHARACTERS), fc.string({ maxLength: 4 })), { maxLength: 6 }).map((parts) => parts.join('')),
  fc.constantFrom(500, 5_000).map((length) => 'a'.repeat(length)),
);

/** A path segment: one of `known` (real slugs, so the handler runs), slug-shaped text, raw oddities, or any text percent-encoded. */
export function pathSegment(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}$/) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    { weight: 2, arbitrary: nastyText.map(percentEncode).filter((segment) => segment !== '') },
  );
}

/** A query parameter a route reads, with the values it expects when it has a list of them. */
export interface QueryParam {
  name: string;
  values?: readonly string[];
}

/** A query string (with its `?`, or empty): known parameters with expected or nasty values, repeats, unknown names, raw oddities. */
export function queryString(params: readonly QueryParam[]): fc.Arbitrary<string> {
  const value = (param: QueryParam) => (param.values?.length ? fc.oneof(fc.constantFrom(...param.values), nastyText) : nastyText);
  const known = params.length ? fc.array(fc.constantFrom(...params).chain((param) => value(param).map((text) => `${percentEncode(param.name)}=${percentEncode(text)}`)), { maxLength: 4 }) : fc.constant([]);
  const unknown = fc.array(fc.tuple(fc.string({ maxLength: 8 }), nastyText).map(([name, text]) => `${percentEncode(name)}=${percentEncode(text)}`), { maxLength: 2 });
  const raw = fc.array(fc.constantFrom(...RAW_SEGMENTS, 'a[b]=c', 'a[]=1', '&', '=', 'x=%'), { maxLength: 2 });
  return fc.tuple(known, unknown, raw).map(([a, b, c]) => {
    const parts = [...a, ...b, ...c];
    return parts.length ? `?${parts.join('&')}` : '';
  });
}
