/**
 * A submodule's URL as git resolves it against its parent's URL (git's relative_url(), remote.c):
 * `./x` and `../x` are relative to the parent repository, each `../` taking off one path component
 * (or the `host:` part of an scp-like URL); anything else is taken as written.
 */
export function resolveSubmoduleUrl(parentUrl: string, url: string): string {
  if (!url.startsWith('./') && !url.startsWith('../')) return url;
  let base = parentUrl.endsWith('/') ? parentUrl.slice(0, -1) : parentUrl;
  let rest = url;
  let colonSeparated = false;
  for (;;) {
    if (rest.startsWith('../')) {
      rest = rest.slice(3);
      const slash = base.lastIndexOf('/');
      const colon = base.lastIndexOf(':');
      if (slash !== -1) base = base.slice(0, slash);
      else if (colon !== -1) {
        base = base.slice(0, colon);
        colonSeparated = true;
      } else base = '.';
    } else if (rest.startsWith('./')) rest = rest.slice(2);
    else break;
  }
  const joined = `${base}${colonSeparated ? ':' : '/'}${rest}`;
  const trimmed = rest.endsWith('/') ? joined.slice(0, -1) : joined;
  return trimmed.startsWith('./') ? trimmed.slice(2) : trimmed;
}
