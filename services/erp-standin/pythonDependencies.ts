import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A module the run was asked to install needs a Python package its interpreter cannot import. */
export class ExternalDependencyError extends Error {
  override readonly name = 'ExternalDependencyError';
}

const MANIFESTS = ['__manifest__.py', '__openerp__.py'];
/** `'external_dependencies': {…}` then its `'python': […]`; the real ERP evaluates the manifest, regular expressions are enough here. */
const EXTERNAL = /['"]external_dependencies['"]\s*:\s*\{([^}]*)\}/;
const PYTHON = /['"]python['"]\s*:\s*[[(]([^\])]*)[\])]/;
const STRING = /['"]([^'"]+)['"]/g;
/** The distribution name in front of a requirement (`python-stdnum>=1.16` → `python-stdnum`). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*/;

/** The manifest's `external_dependencies['python']` of the first addons-path folder holding the module, empty when none. */
export function pythonDependenciesOf(addonsPath: readonly string[], module: string): string[] {
  for (const dir of addonsPath) {
    const manifest = MANIFESTS.map((file) => join(dir, module, file)).find((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
    if (!manifest) continue;
    const external = EXTERNAL.exec(readFileSync(manifest, 'utf8'))?.[1];
    const python = external ? PYTHON.exec(external)?.[1] : undefined;
    return python ? [...python.matchAll(STRING)].map((match) => match[1]!.trim()) : [];
  }
  return [];
}

/**
 * Asked of the interpreter, in one run for all names: for each, whether a distribution of that name
 * is installed (importlib.metadata) or, failing that, a module of that name can be imported
 * (importlib.util.find_spec), the two tries of the real `check_python_external_dependency`.
 */
const PROBE = `
import importlib.metadata, importlib.util, json, sys
def found(name):
    try:
        importlib.metadata.version(name)
        return True
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
print(json.dumps([name for name in sys.argv[1:] if not found(name)]))
`;

/**
 * Which of `requirements` the interpreter `python` cannot provide. A version specifier is not
 * compared: the stand-in checks the name only. An interpreter that cannot be run provides nothing.
 */
export function missingPythonDependencies(python: string, requirements: readonly string[]): string[] {
  if (requirements.length === 0) return [];
  const names = requirements.map((requirement) => NAME.exec(requirement)?.[0] ?? requirement);
  const result = spawnSync(python, ['-c', PROBE, ...names], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) return [...requirements];
  const missing = new Set(JSON.parse(result.stdout) as string[]);
  return requirements.filter((_, index) => missing.has(names[index]!));
}

/**
 * Refuses to install (or upgrade) `modules` when one of them names a Python package that `python`
 * lacks, as the real ERP does when `-i` marks them for installation and `-u` for upgrade
 * (odoo/addons/base/models/ir_module.py, button_install / button_upgrade →
 * `check_external_dependencies`, calling odoo/modules/module.py `check_manifest_dependencies` →
 * `check_python_external_dependency`): the whole install stops on the first one, nothing is installed.
 * The reason follows the version: 16.0 "Python library not installed", 17.0+ "External dependency … not installed".
 */
export function checkExternalDependencies(python: string, version: string | undefined, modules: readonly string[], dependenciesOf: (module: string) => string[], action: 'install' | 'upgrade' = 'install'): void {
  const wanted = modules.map((module) => ({ module, requirements: dependenciesOf(module) })).filter(({ requirements }) => requirements.length > 0);
  const missing = new Set(missingPythonDependencies(python, wanted.flatMap(({ requirements }) => requirements)));
  for (const { module, requirements } of wanted) {
    const dependency = requirements.find((requirement) => missing.has(requirement));
    if (dependency === undefined) continue;
    const reason = version === '16.0'
      ? `Python library not installed: ${dependency}`
      : `External dependency '${dependency}' not installed: No package metadata was found for ${dependency}`;
    throw new ExternalDependencyError(`Unable to ${action} module "${module}" because an external dependency is not met: ${reason}`);
  }
}
