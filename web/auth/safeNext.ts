/** Where to go after signing in: a local path only, so a crafted link cannot send users elsewhere. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next.length > 500 ? '/' : next;
}
