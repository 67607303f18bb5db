import type { StepFacts } from '#services/instances/domain/instance.ts';
import { addonsPathFor } from '../runtime/addonsPath.ts';
import type { ErpRunSpec } from '../runtime/runtime.ts';
import type { StepEnvironment } from './stepEnvironment.ts';

/**
 * The instance's addons path (addonsPath.ts), computed from its checkout as it is now: the build
 * step calls it after `fetch_code` and records it, and every later run of the ERP uses that record.
 */
export function instanceAddonsPath(env: Pick<StepEnvironment, 'instance' | 'spec' | 'runtime' | 'addons'>): string[] {
  const { erpVersion, edition } = env.instance;
  return addonsPathFor({ erpVersion, edition, checkoutDir: env.spec.sourceDir, standin: env.runtime.usesStandin(erpVersion), settings: env.addons ?? {} });
}

/** One line per folder in the `erp` log: what the ERP will search for modules, in its order. */
export async function logAddonsPath(env: Pick<StepEnvironment, 'erpLog'>, addonsPath: readonly string[]): Promise<void> {
  if (addonsPath.length === 0) {
    await env.erpLog("addons path: the ERP's default");
    return;
  }
  await env.erpLog(`addons path (${addonsPath.length} folder${addonsPath.length === 1 ? '' : 's'}, in order):`);
  for (const folder of addonsPath) await env.erpLog(`  ${folder}`);
}

/**
 * The spec to run the ERP with, and the facts to record: an instance built before Forja recorded
 * addons paths has none, and gets one now from the checkout it has (the fact is then kept).
 */
export async function withAddonsPath(env: StepEnvironment): Promise<{ spec: ErpRunSpec; facts: StepFacts }> {
  if (env.instance.facts.addonsPath !== undefined) return { spec: env.spec, facts: {} };
  const addonsPath = instanceAddonsPath(env);
  await logAddonsPath(env, addonsPath);
  return { spec: { ...env.spec, addonsPath }, facts: { addonsPath } };
}
