import { done } from '#shared/workflow/stepOutcome.ts';
import type { MigrationStep, MigrationStepContext } from '../migrationStepContext.ts';
import { ErpRunError } from '../../runtime/runtime.ts';
import { restoreCheckpoint, takeCheckpoint } from './checkpoint.ts';
import { erpFailureMessage } from './erpFailure.ts';

/** `${paths.upgrade}` and `${run.number}`, the variables a plan leaves for the run. */
function runVariables(text: string, context: MigrationStepContext, version: string): string {
  return text.replaceAll('${paths.upgrade}', context.upgradePath(version)).replaceAll('${run.number}', String(context.run.number));
}

/**
 * Runs the ERP of the origin or destination version once on the working database (an
 * OpenUpgrade `-u all` run, say). It changes the database in place and commits per module, so a
 * retry or a resume first rebuilds the database from the last checkpoint, and a success takes a
 * new one.
 */
export const erp: MigrationStep = async (context) => {
  const { params } = context.step;
  const version = typeof params['erpVersion'] === 'string' ? params['erpVersion'] : params['version'] === 'origin' ? context.migration.origin : context.migration.destination;
  const args = (Array.isArray(params['args']) ? (params['args'] as unknown[]) : []).map((arg) => runVariables(String(arg), context, version));
  if (context.dirty) await restoreCheckpoint(context);
  await context.prepareCode(version);
  await context.log(`running the ${version} ERP once: ${args.join(' ')}${Object.keys(params['env'] ?? {}).length > 0 ? ` (environment: ${Object.keys(params['env'] as object).join(', ')})` : ''}`);
  // The recipe's `env` (OPENUPGRADE_TARGET_VERSION: the chain's last version) reaches the ERP.
  const env = Object.fromEntries(Object.entries((params['env'] ?? {}) as Record<string, unknown>).map(([name, value]) => [name, runVariables(String(value), context, version)]));
  const spec = context.erpRunSpec(version, { env });
  await context.log(`addons path: ${spec.addonsPath.length > 0 ? spec.addonsPath.join(',') : "the ERP's default"}`);
  // The customer's requirements.txt files, in a virtualenv of their own (process runtime; instanceVenv.ts).
  if (spec.python) await context.runtime.build(spec);
  try {
    await context.runtime.runOnce(spec, args, context.signal);
  } catch (error) {
    if (error instanceof ErpRunError) throw new ErpRunError(erpFailureMessage(error.message, error.logTail), error.exitCode, error.logTail);
    throw error;
  }
  await takeCheckpoint(context);
  return done({ erpVersion: version });
};
