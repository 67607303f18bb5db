import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './args.ts';
import { STANDARD_MODULES, standardModuleVersion } from './standardModules.ts';

/** What makes a folder an addon; the second is the name before the ERP's version 10. */
const MANIFESTS = ['__manifest__.py', '__openerp__.py'];
/** The manifest's `'version': '…'`; the real ERP evaluates the file, a regular expression is enough for a stand-in. */
const VERSION_KEY = /['"]version['"]\s*:\s*['"]([^'"]+)['"]/;

const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/**
 * The modules the ERP can install, each with its manifest version (`1.3`, or `17.0.1.0.0` as OCA
 * writes it): its standard ones and, as the real ERP scans its addons path, every folder directly
 * inside an `--addons-path` directory that holds a manifest (version 1.0 when it names none).
 * The first folder of a name wins, and an addon shadows a standard module of its name. A missing
 * directory is refused at start-up, as the real ERP does.
 */
export function knownModules(addonsPath: readonly string[]): Map<string, string> {
  const addons = new Map<string, string>();
  for (const dir of addonsPath) {
    if (!isDirectory(dir)) throw new UsageError(`option --addons-path: no such directory: '${dir}'`);
    for (const name of readdirSync(dir).filter((entry) => isDirectory(join(dir, entry)))) {
      const manifest = MANIFESTS.map((file) => join(dir, name, file)).find(isFile);
      if (manifest && !addons.has(name)) addons.set(name, VERSION_KEY.exec(readFileSync(manifest, 'utf8'))?.[1] ?? '1.0');
    }
  }
  return new Map([...STANDARD_MODULES.map((name) => [name, standardModuleVersion(name)] as const), ...addons]);
}
