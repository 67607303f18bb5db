import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, relative } from 'node:path';

const MANIFESTS = ['__manifest__.py', '__openerp__.py'];
const isModule = (dir: string) => MANIFESTS.some((name) => lstatSync(join(dir, name), { throwIfNoEntry: false })?.isFile() === true);

/** A repository's `requirements.txt` and its content, read without following a link. */
export interface RequirementFile {
  /** Relative to the checkout: `requirements.txt`, `oca/web/requirements.txt`. */
  path: string;
  content: Buffer;
}

/**
 * The `requirements.txt` files Odoo.sh installs (odoo/documentation,
 * content/administration/odoo_sh/advanced/containers.rst and submodules.rst): the one at the root
 * of the repository and the one of every folder that holds modules, submodules included, in a
 * stable order. Dot-folders and the inside of modules are not searched. A link is never followed
 * (a `requirements.txt` linking to another tenant's file or /etc/shadow would be read as root and
 * echoed by pip), neither as a folder nor as the file.
 */
export function requirementFiles(sourceDir: string): RequirementFile[] {
  const found: RequirementFile[] = [];
  const visit = (dir: string, root: boolean) => {
    const folders = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => join(dir, entry.name))
      .sort();
    const modules = folders.filter(isModule);
    if (root || modules.length > 0) {
      const content = readNoFollow(join(dir, 'requirements.txt'));
      if (content) found.push({ path: relative(sourceDir, join(dir, 'requirements.txt')), content });
    }
    for (const folder of folders) if (!modules.includes(folder)) visit(folder, false);
  };
  if (lstatSync(sourceDir, { throwIfNoEntry: false })?.isDirectory()) visit(sourceDir, true);
  return found;
}

function readNoFollow(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined; // none, or a link
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** The cache key of a venv: the ERP version (its interpreter) and every file's path and content. */
export function requirementsKey(erpVersion: string, files: readonly RequirementFile[]): string {
  const hash = createHash('sha256').update(erpVersion);
  for (const file of files) hash.update('\0').update(file.path).update('\0').update(file.content);
  return `${erpVersion}-${hash.digest('hex').slice(0, 32)}`;
}

/** The interpreter of the venv `<FORJA_DATA_DIR>/venvs/<key>/venv` for these files. */
export const venvPython = (root: string, key: string) => join(root, 'venvs', key, 'venv', 'bin', 'python');

/** The interpreter of an instance's own venv (instanceVenv.ts) when its checkout has requirement files; null when it has none. */
export function instanceVenvPython(root: string, erpVersion: string, sourceDir: string | null): string | null {
  const files = sourceDir ? requirementFiles(sourceDir) : [];
  return files.length === 0 ? null : venvPython(root, requirementsKey(erpVersion, files));
}
