/**
 * A WebSocket is not covered by web's CSRF check, and browsers let any page open one to any site
 * with the user's cookies: the Origin header is what tells web's own page from another site's.
 * With FORJA_PUBLIC_URL set it must be exactly that; otherwise its host must be the one the
 * request came to. No Origin (no browser sent it) is refused too: the shell is for the page.
 */
export function sameOrigin(origin: string | undefined, host: string | undefined, publicUrl: string | undefined): boolean {
  if (!origin || origin === 'null') return false;
  if (publicUrl) return origin === publicUrl;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && host !== undefined && parsed.host === host.toLowerCase();
}
