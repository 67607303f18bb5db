import { closeSync, constants, fstatSync, openSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { at, lstatBeneath, O_PATH, openFolderBeneath, withFolderBeneath, writeFileBeneath } from '#shared/fs/beneath.ts';
import { ownedFolderAt } from '#shared/fs/ownedFolder.ts';
import type { InstanceToolLaunch } from './instanceToolSpec.ts';

/**
 * What web (root, maybe) makes in a tool's own folder, which the tool's account writes: every
 * folder, file and link is made from open handles without following a link the tenant planted
 * (beneath.ts), and given to the account through its handle.
 */

type Launch = Pick<InstanceToolLaunch, 'folder' | 'owner' | 'workDir'>;

/**
 * The folders `names` below the tool's folder, the account's (0700), made when missing; a link in
 * their place is removed, never followed. Returns the path, for the tool's own command line.
 */
export function toolSubfolder(launch: Launch, ...names: string[]): string {
  let fd = openFolderBeneath(launch.folder.base, launch.folder.relative);
  try {
    for (const name of names) {
      const next = ownedFolderAt(fd, name, launch.owner, 0o700);
      closeSync(fd);
      fd = next;
    }
  } finally {
    closeSync(fd);
  }
  return join(launch.workDir, ...names);
}

/**
 * Writes `content` as the file `relative` below the tool's folder (its folder must exist:
 * toolSubfolder), the account's, readable by it alone. With `keep`, a file already there (the
 * user's own edits) is kept; a link there is replaced, never written through.
 */
export function writeToolFile(launch: Launch, relative: string, content: string, keep = false): string {
  const where = `${launch.folder.relative}/${relative}`;
  const found = keep ? lstatBeneath(launch.folder.base, where) : null;
  if (!found || found.isSymbolicLink()) writeFileBeneath(launch.folder.base, where, content, { mode: 0o600, owner: launch.owner });
  return join(launch.workDir, relative);
}

/**
 * The link `name` in the folder `folder` (below the tool's) to `target`, made again at each start;
 * whatever else the user put there (a folder of their own) is left as it is.
 */
export function linkInToolFolder(launch: Launch, folder: string, name: string, target: string | null): void {
  withFolderBeneath(launch.folder.base, `${launch.folder.relative}/${folder}`, (dir) => {
    if (isLinkAt(dir, name)) unlinkSync(at(dir, name));
    if (target === null) return;
    try {
      symlinkSync(target, at(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  });
}

function isLinkAt(dir: number, name: string): boolean {
  let fd: number;
  try {
    fd = openSync(at(dir, name), O_PATH | constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    return fstatSync(fd).isSymbolicLink();
  } finally {
    closeSync(fd);
  }
}
