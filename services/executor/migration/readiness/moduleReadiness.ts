import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * The readiness report of one hop (issue 26, item 2): for each module installed in the database,
 * where the destination ERP would find it, what OpenUpgrade says of it, and what that means for
 * the run. Computed from the addons path the hop's ERP gets (migrationHost.ts `erpRunSpec`), so
 * it says what the upgrade itself will find.
 */
export type ModuleSource = 'standard' | 'code' | 'submodule' | 'missing';
export type Verdict = 'ok' | 'warning' | 'blocks';

export interface ModuleReadiness {
  module: string;
  found: ModuleSource;
  /** The folder holding it, relative to the customer's checkout for `code` and `submodule`; null when missing. */
  where: string | null;
  /** OpenUpgrade's word for it on this hop (docsource/modules<from>-<to>.rst), or null when it does not list it or has no table. */
  openupgrade: string | null;
  verdict: Verdict;
  /** What the verdict means, for people. */
  note: string;
}

export interface HopReadiness {
  origin: string;
  destination: string;
  modules: ModuleReadiness[];
  counts: Record<Verdict, number>;
}

export interface ReadinessInput {
  origin: string;
  destination: string;
  installed: readonly string[];
  /** The hop's addons path in order (the first folder holding a module is the one the ERP loads). */
  addonsPath: readonly string[];
  /** The customer's checkout, when the migration names code for this hop. */
  checkout: string | null;
  /** OpenUpgrade's checkout for this hop, when it is one. */
  openupgrade: string | null;
  /** The coverage step's allow_missing globs, as regular expressions. */
  allowed: readonly RegExp[];
}

const MANIFESTS = ['__manifest__.py', '__openerp__.py'];
const holdsModule = (dir: string) => MANIFESTS.some((file) => existsSync(join(dir, file)));

/** Below the checkout, a folder with its own `.git` (a file in a checked-out submodule) is a submodule. */
function inSubmodule(checkout: string, moduleDir: string): boolean {
  for (let dir = dirname(moduleDir); dir.startsWith(checkout + sep); dir = dirname(dir)) if (existsSync(join(dir, '.git'))) return true;
  return false;
}

/**
 * OpenUpgrade's coverage table of a hop: `docsource/modules<from><to>.rst` (e.g. modules160-170.rst),
 * rows `|module |status |`; the status without its markup (`|del|`, `|new|`, `*`), lower case.
 */
export function openUpgradeCoverage(openupgrade: string, origin: string, destination: string): Map<string, string> | null {
  const code = (version: string) => `${Number.parseInt(version, 10)}0`;
  const file = join(openupgrade, 'docsource', `modules${code(origin)}-${code(destination)}.rst`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const table = new Map<string, string>();
  for (const line of text.split('\n')) {
    const cells = /^\|([^|]+)\|([^|]*)\|/.exec(line);
    if (!cells) continue;
    const module = cells[1]!.replace(/\|\w+\|/g, '').trim();
    if (!/^[a-z0-9_]+$/.test(module)) continue; // the header row and separators
    table.set(module, cells[2]!.replace(/\|\w+\|/g, '').replace(/\*/g, '').trim().toLowerCase());
  }
  return table;
}

const NOTHING_TO_DO = /^(done|nothing to do|no db layout changes|no update)/;

function judge(found: ModuleSource, openupgrade: string | null, hasTable: boolean, allowed: boolean): { verdict: Verdict; note: string } {
  if (found === 'missing') {
    return allowed ? { verdict: 'warning', note: 'not on the destination\'s addons path; allowed missing by the recipe: it stays at its old version' } : { verdict: 'blocks', note: 'not on the destination\'s addons path: name the branch holding its code for this version, or uninstall it first' };
  }
  if (found !== 'standard') return { verdict: 'ok', note: 'its code for this version is in the customer\'s repository: its own migration scripts run' };
  if (!hasTable) return { verdict: 'ok', note: 'a standard module' };
  if (openupgrade === null) return { verdict: 'warning', note: 'a standard module OpenUpgrade\'s table does not list for this hop' };
  if (NOTHING_TO_DO.test(openupgrade)) return { verdict: 'ok', note: `OpenUpgrade: ${openupgrade}` };
  return { verdict: 'warning', note: `OpenUpgrade: ${openupgrade || 'not covered yet'}: its data may not be migrated` };
}

export function hopReadiness(input: ReadinessInput): HopReadiness {
  const table = input.openupgrade ? openUpgradeCoverage(input.openupgrade, input.origin, input.destination) : null;
  const modules = [...new Set(input.installed)].sort().map((module): ModuleReadiness => {
    const folder = input.addonsPath.find((dir) => isDirectory(join(dir, module)) && holdsModule(join(dir, module)));
    const moduleDir = folder === undefined ? null : join(folder, module);
    const checkout = input.checkout;
    const found: ModuleSource = moduleDir === null ? 'missing' : checkout && moduleDir.startsWith(checkout + sep) ? (inSubmodule(checkout, moduleDir) ? 'submodule' : 'code') : 'standard';
    const where = moduleDir === null ? null : checkout && found !== 'standard' ? relative(checkout, moduleDir) : moduleDir;
    const openupgrade = table?.get(module) ?? null;
    return { module, found, where, openupgrade, ...judge(found, openupgrade, table !== null, input.allowed.some((pattern) => pattern.test(module))) };
  });
  const counts: Record<Verdict, number> = { ok: 0, warning: 0, blocks: 0 };
  for (const module of modules) counts[module.verdict]++;
  return { origin: input.origin, destination: input.destination, modules, counts };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
