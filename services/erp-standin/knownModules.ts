import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './args.ts';
import { STANDIN_BASE_ADDONS, STANDIN_STANDARD_ADDONS } from './standinPaths.ts';
import { majorOf } from './version.ts';

/** What makes a folder an addon; the second is the name before the ERP's version 10. */
const MANIFESTS = ['__manifest__.py', '__openerp__.py'];
/** The manifest's `'version': '…'`; the real ERP evaluates the file, a regular expression is enough for a stand-in. */
const VERSION_KEY = /['"]version['"]\s*:\s*['"]([^'"]+)['"]/;

/** A path's kind; a path through a file (`README.md/__init__.py`) or an unreadable one is neither. */
function kind(path: string): 'file' | 'directory' | undefined {
  try {
    const stats = statSync(path);
    return stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}
const isDirectory = (path: string) => kind(path) === 'directory';
const isFile = (path: string) => kind(path) === 'file';

/** The path the ERP uses without any addons path: its own two folders (odoo/tools/config.py's default). */
export const DEFAULT_ADDONS_PATH: readonly string[] = [STANDIN_BASE_ADDONS, STANDIN_STANDARD_ADDONS];

/**
 * odoo/tools/config.py `_is_addons_path`: a folder is an addons directory when at least one
 * folder directly inside it holds `__init__.py` and a manifest (19.0 accepts only `__manifest__.py`).
 */
function isAddonsPath(dir: string, major: number): boolean {
  const manifests = major >= 19 ? ['__manifest__.py'] : MANIFESTS;
  return readdirSync(dir).some((name) => isFile(join(dir, name, '__init__.py')) && manifests.some((file) => isFile(join(dir, name, file))));
}

/**
 * The addons path the ERP really searches, per version (FORJA_STANDIN_VERSION; unset plays 18.0's rules):
 * - every entry is checked as odoo/tools/config.py `_check_addons_path` does: on 16.0–18.0 a
 *   missing folder or one holding no module is an option error (exit 2); 19.0 logs a warning and
 *   skips the entry, for a missing folder too;
 * - on 16.0 and 17.0 the given path replaces the default one: only `odoo/addons` (base) is added
 *   back (odoo/modules/module.py, `initialize_sys_path`), so the standard modules in the source's
 *   `addons` folder are found only when that folder is on the path; 18.0+ adds both defaults back;
 * - without any addons path the defaults are used.
 */
export function erpAddonsPath(given: readonly string[], version: string | undefined, warn: (message: string) => void): string[] {
  if (given.length === 0) return [...DEFAULT_ADDONS_PATH];
  const major = version ? majorOf(version) : 18;
  const checked: string[] = [];
  for (const dir of given) {
    if (!isDirectory(dir)) {
      if (major >= 19) warn(`option --addons-path, no such directory '${dir}', skipped`);
      else throw new UsageError(`option --addons-path: no such directory: '${dir}'`);
    } else if (!isAddonsPath(dir, major)) {
      if (major >= 19) warn(`option --addons-path, invalid addons directory '${dir}', skipped`);
      else if (major <= 16) throw new UsageError(`option --addons-path: The addons-path '${dir}' does not seem to a be a valid Addons Directory!`);
      else throw new UsageError(`option --addons-path: the path '${dir}' is not a valid addons directory`);
    } else {
      checked.push(dir);
    }
  }
  const defaults = major >= 18 ? DEFAULT_ADDONS_PATH : [STANDIN_BASE_ADDONS];
  return [...new Set([...checked, ...defaults])];
}

/**
 * The modules found on an addons path, each with its manifest version (`1.3`, or `17.0.1.0.0` as
 * OCA writes it; 1.0 when it names none): as the real ERP scans it (odoo/modules/module.py,
 * `get_modules`), every folder directly inside a path entry that holds a manifest. The first
 * folder of a name wins.
 */
export function modulesOn(addonsPath: readonly string[]): Map<string, string> {
  const modules = new Map<string, string>();
  for (const dir of addonsPath) {
    for (const name of readdirSync(dir).filter((entry) => isDirectory(join(dir, entry)))) {
      const manifest = MANIFESTS.map((file) => join(dir, name, file)).find(isFile);
      if (manifest && !modules.has(name)) modules.set(name, VERSION_KEY.exec(readFileSync(manifest, 'utf8'))?.[1] ?? '1.0');
    }
  }
  return modules;
}

/**
 * The modules an ERP stand-in can load from `addonsPath` plus its own standard ones, without the
 * per-version path rules (the migration coverage step asks this; the stand-in itself uses
 * erpAddonsPath). An addon shadows a standard module of its name; a missing directory is refused.
 */
export function knownModules(addonsPath: readonly string[]): Map<string, string> {
  const missing = addonsPath.find((dir) => !isDirectory(dir));
  if (missing) throw new UsageError(`option --addons-path: no such directory: '${missing}'`);
  return modulesOn([...addonsPath, ...DEFAULT_ADDONS_PATH]);
}
