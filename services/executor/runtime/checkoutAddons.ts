import { lstatSync, readdirSync, realpathSync, type Dirent } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * The folders of a checked-out repository that go on the ERP's addons path, by Odoo.sh's rule
 * (odoo/documentation, content/administration/odoo_sh/advanced/submodules.rst): every folder of
 * the repository and of its git submodules, at any depth, that holds modules; a folder whose name
 * starts with `.` is ignored with everything in it (Odoo.sh's way to keep a submodule's modules
 * off the path and hand-pick some through links from another folder).
 *
 * A folder holds modules when a direct child is a module: a folder with `__init__.py` and a
 * manifest (`__manifest__.py`, or `__openerp__.py` before version 10), the test of
 * odoo/tools/config.py `_is_addons_path` (16.0–18.0) and odoo/modules/module.py. A child may be a
 * link to a module elsewhere in the checkout (the hand-picking above); a link that leads out of
 * the checkout counts for nothing, and no link is ever walked into: the repository is the
 * customer's, and Forja, root, must not put a folder of the host on the path because a link in
 * it says so. Submodules need no rule of their own: the checkout step put them in place
 * (gitSource.ts), each a folder of the work tree.
 */

/** How far the scan goes: a repository is the customer's, and nothing stops it holding a million folders. */
export interface ScanLimits {
  /** Folders below the checkout root, the root being depth 0. */
  depth: number;
  /** Folders read in all. */
  folders: number;
}

/** Deep enough for submodules in submodules (gitSource.ts allows 8 levels) with their own nesting. */
export const DEFAULT_SCAN_LIMITS: ScanLimits = { depth: 16, folders: 20_000 };

/** Folders never scanned besides dot-folders: a JavaScript tool's packages are never the ERP's modules. */
const SKIPPED = new Set(['node_modules', '__pycache__']);
const MANIFESTS = ['__manifest__.py', '__openerp__.py'];

export class AddonsScanError extends Error {
  override readonly name = 'AddonsScanError';
}

const isFile = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.isFile() === true;
const isModule = (dir: string) => isFile(join(dir, '__init__.py')) && MANIFESTS.some((name) => isFile(join(dir, name)));

/** The real folder a child link leads to, when it stays inside `root` (itself real); null otherwise. */
function linkInside(root: string, link: string): string | null {
  let target: string;
  try {
    target = realpathSync(link);
  } catch {
    return null; // dangling, or a loop
  }
  if (target !== root && !target.startsWith(`${root}${sep}`)) return null;
  return lstatSync(target).isDirectory() ? target : null;
}

function holdsModules(root: string, dir: string, entries: Dirent[]): boolean {
  return entries.some((entry) => {
    if (entry.isDirectory()) return isModule(join(dir, entry.name));
    if (!entry.isSymbolicLink()) return false;
    const target = linkInside(root, join(dir, entry.name));
    return target !== null && isModule(target);
  });
}

/**
 * The folders of `checkoutDir` that hold modules: the root first, then depth-first with each
 * folder's children in code-point order of their names, so the path is the same at every build
 * of the same commit. A module's own folders are not searched (its `static/`, `tests/`… hold no
 * modules of the ERP's). Throws AddonsScanError past `limits`, or on a folder the ERP's
 * comma-separated `addons_path` cannot name.
 */
export function checkoutAddons(checkoutDir: string, limits: ScanLimits = DEFAULT_SCAN_LIMITS): string[] {
  const given = resolve(checkoutDir);
  const root = realpathSync(given);
  const found: string[] = [];
  let read = 0;
  const walk = (dir: string, depth: number): void => {
    if (++read > limits.folders) throw new AddonsScanError(`the repository has more than ${limits.folders} folders to search for modules; Forja stops there (move what the ERP does not need into a folder whose name starts with a dot)`);
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (holdsModules(root, dir, entries)) {
      if (/[,\r\n]/.test(dir)) throw new AddonsScanError(`the folder ${relative(root, dir)} holds modules, but its name has a comma or a line break, which the ERP's addons_path cannot hold: rename it`);
      // Named below the folder as given: the runtimes map the checkout by that name (into a container).
      found.push(join(given, relative(root, dir)));
    }
    for (const entry of entries) {
      // Dirent types come from the folder itself (no link followed): a link is never walked into.
      if (!entry.isDirectory() || entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
      const child = join(dir, entry.name);
      if (isModule(child)) continue;
      if (depth + 1 > limits.depth) throw new AddonsScanError(`the repository's folders go deeper than ${limits.depth} levels (${relative(root, child)}); Forja searches for modules no deeper`);
      walk(child, depth + 1);
    }
  };
  walk(root, 0);
  return found;
}
