import { posix } from 'node:path';

/**
 * The path of a request as the ERP's routing could end up seeing it, however it was spelled:
 * the absolute form's path (`POST http://host/web/…`), percent-decoding repeated until nothing
 * changes (the ERP's WSGI server decodes once, `%2F` included, and a proxy in front may decode
 * again), backslashes as slashes, repeated slashes merged (werkzeug redirects `//web/…` to
 * `/web/…` with a 308, which keeps a POST a POST) and `.`/`..` segments resolved.
 */
export function normalizedPath(url: string): string {
  let path = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') : url;
  path = path.replace(/[?#].*$/s, '');
  for (let round = 0; round < 8; round += 1) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      decoded = path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    if (decoded === path) break;
    path = decoded;
  }
  return posix.normalize(`/${path.replaceAll('\\', '/')}`);
}

/**
 * `/web/database/*`: the ERP's database manager (addons/web/controllers/database.py: manager,
 * selector, list, create, duplicate, drop, backup, restore, rename, change_password). The ERP
 * keeps it closed (`list_db = False`, erpConfigFile.ts); the router refuses it too, so an ERP
 * started some other way is not open to anyone who reaches its address. Also behind a leading
 * language segment (`/fr_BE/web/database/…`), which the ERP's website routing strips, and in any
 * letter case (the ERP's routing is case-sensitive, so refusing more costs nothing).
 */
const DATABASE_MANAGER = /^(?:\/[^/]+)?\/web\/database(?:\/|$)/i;

export const isDatabaseManagerPath = (url: string | undefined): boolean => DATABASE_MANAGER.test(normalizedPath(url ?? '/'));
