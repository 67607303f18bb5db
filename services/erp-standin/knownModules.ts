import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './args.ts';
import { STANDARD_MODULES } from './standardModules.ts';

/** What makes a folder an addon; the second is the name before the ERP's version 10. */
const MANIFESTS = ['__manifest__.py', '__openerp__.py'];

const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/**
 * The modules the ERP can install: its standard ones and, as the real ERP scans its addons path,
 * every folder directly inside an `--addons-path` directory that holds a manifest. A missing
 * directory is refused at start-up, as the real ERP does.
 */
export function knownModules(addonsPath: readonly string[]): string[] {
  const addons = addonsPath.flatMap((dir) => {
    if (!isDirectory(dir)) throw new UsageError(`option --addons-path: no such directory: '${dir}'`);
    const folders = readdirSync(dir).filter((name) => isDirectory(join(dir, name)));
    return folders.filter((name) => MANIFESTS.some((manifest) => isFile(join(dir, name, manifest))));
  });
  return [...new Set([...STANDARD_MODULES, ...addons])];
}
