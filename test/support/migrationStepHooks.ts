import type { ResolveHook } from 'node:module';

const REGISTRY = '/services/executor/migration/steps/registry.ts';
const PAUSING = new URL('./pausingMigrationSteps.ts', import.meta.url).href;

/**
 * Module hook of the migration kill test's executor (registered by migrationExecutorChild.ts):
 * the executor imports the pausing step registry instead of the shipped one, which only the
 * pausing registry itself still reaches.
 */
export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  const resolved = await nextResolve(specifier, context);
  if (new URL(resolved.url).pathname.endsWith(REGISTRY) && context.parentURL !== PAUSING) return { ...resolved, url: PAUSING };
  return resolved;
};
