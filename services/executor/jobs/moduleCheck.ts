import type { ErpDatabases } from '../database/erpDatabases.ts';
import type { ModuleState } from '../database/moduleStates.ts';
import type { ErpRunSpec } from '../runtime/runtime.ts';

/** A requested module that is not installed, with its registry state (null when the ERP does not know it). */
export interface MissingModule {
  name: string;
  state: string | null;
}

/** The requested modules whose registry row is absent or not `installed`, in request order. */
export function missingModules(requested: readonly string[], rows: readonly ModuleState[]): MissingModule[] {
  const states = new Map(rows.map((row) => [row.name, row.state]));
  return [...new Set(requested)].filter((name) => states.get(name) !== 'installed').map((name) => ({ name, state: states.get(name) ?? null }));
}

/** Names every missing module; for those the ERP does not know, where it looked for them: the addons path it was given, in order. */
export function missingModulesMessage(missing: readonly MissingModule[], addonsPath: readonly string[]): string {
  const unknown = missing.filter((module) => module.state === null).map((module) => module.name);
  const searched = addonsPath.length > 0 ? addonsPath.join(', ') : "the ERP's default";
  const parts = [
    ...(unknown.length > 0 ? [`${unknown.join(', ')} (not found in the addons path: ${searched})`] : []),
    ...missing.filter((module) => module.state !== null).map((module) => `${module.name} (state ${module.state})`),
  ];
  return `modules not installed: ${parts.join(', ')}`;
}

/**
 * Throws, naming what is missing, unless every requested module is installed in the instance's
 * database. Only the database tells: the ERP logs a module it cannot find as "invalid module
 * names, ignored" and still exits 0.
 */
export async function assertModulesInstalled(databases: ErpDatabases, spec: ErpRunSpec, requested: readonly string[]): Promise<void> {
  const missing = missingModules(requested, await databases.moduleStates(spec.database, requested));
  if (missing.length > 0) throw new Error(missingModulesMessage(missing, spec.addonsPath));
}
