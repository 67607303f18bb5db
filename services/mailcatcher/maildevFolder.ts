import { closeSync, constants, openSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ownedFolderAt } from '#shared/fs/ownedFolder.ts';
import { MAIL_CATCHER_DIR, MAIL_CATCHER_OS_USER } from '#shared/local/mailCatcherSocket.ts';
import { ensureSystemUser, type SystemUser } from '#shared/local/systemUser.ts';

/**
 * maildev's folder, `FORJA_DATA_DIR/mailcatcher` (0700): its mail (kept across restarts) and its
 * web UI's socket, the account's alone. As root that account is `forja-mail`: maildev parses
 * whatever any sender wrote, so it runs with no rights on Forja's data. Made through the data
 * folder's handle (a link in its place is removed, never followed); a socket left by an earlier
 * start is removed so maildev can bind again.
 */
export function prepareMaildevFolder(dataDir: string): { dir: string; mailDir: string; user: SystemUser | null } {
  const user = process.getuid?.() === 0 ? ensureSystemUser(MAIL_CATCHER_OS_USER) : null;
  const root = openSync(resolve(dataDir), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const folder = ownedFolderAt(root, MAIL_CATCHER_DIR, user, 0o700);
    try {
      closeSync(ownedFolderAt(folder, 'mail', user, 0o700));
      // The folder's handle, whatever its name leads to by now: an unlink removes a link itself.
      rmSync(`/proc/self/fd/${folder}/web.sock`, { force: true });
    } finally {
      closeSync(folder);
    }
  } finally {
    closeSync(root);
  }
  const dir = join(resolve(dataDir), MAIL_CATCHER_DIR);
  return { dir, mailDir: join(dir, 'mail'), user };
}
