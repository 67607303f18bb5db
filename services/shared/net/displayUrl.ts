/** Query parameters whose value is a secret in the URLs people paste: signed URLs, API tokens. */
const SECRET_PARAMETER = /token|pass|secret|sig|key/i;
const NESTED_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]+@/gi;

/**
 * `url` as it may be shown (logs, errors, pages): user and password become `***`, and so do the
 * values of query parameters named like a secret (`token`, `X-Amz-Signature`, `sig`, `api_key`…)
 * and the user and password of a URL inside a parameter.
 * A URL that does not parse is cut to its scheme and what looks like a host, so a malformed
 * `https://user:pw@…` shows nothing of the password either.
 */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const start = /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#\s]*)/i.exec(url);
    const host = (start?.[2] ?? '').replace(/^.*@/, '***@');
    return `${start?.[1] ?? ''}${host}…`;
  }
  if (parsed.username || parsed.password) {
    parsed.username = '***';
    parsed.password = '';
  }
  parsed.search = maskQuery(parsed.search);
  return parsed.href;
}

/** `?a=1&token=x` → `?a=1&token=***`, other parameters kept as written. */
function maskQuery(search: string): string {
  if (!search) return search;
  const parts = search.slice(1).split('&').map((part) => {
    const equals = part.indexOf('=');
    const key = equals === -1 ? part : part.slice(0, equals);
    if (equals === -1) return part;
    if (SECRET_PARAMETER.test(decodeLoosely(key))) return `${key}=***`;
    // A URL carried in a parameter (`?next=https://user:pw@…`) keeps its credentials hidden too.
    const value = decodeLoosely(part.slice(equals + 1));
    const masked = value.replace(NESTED_USERINFO, '$1***@');
    return masked === value ? part : `${key}=${encodeURIComponent(masked)}`;
  });
  return `?${parts.join('&')}`;
}

function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
