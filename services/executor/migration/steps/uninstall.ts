import { done } from '#shared/workflow/stepOutcome.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { restoreCheckpoint, takeCheckpoint } from './checkpoint.ts';
import { stringListParam } from './stepParams.ts';

/**
 * Marks `params.modules` for removal, as OpenUpgrade's own CI prepares a database: installed ones
 * get state `to remove`, and the next `erp` step's `-u` run removes them with their data. Nothing
 * more: their dependents are not followed (automatic uninstall is "very hard and dangerous",
 * OCA/OpenUpgrade#3160), and a module that is not installed is only reported. Forja's ERP stand-in
 * does not act on `to remove`. Idempotent, and under the same checkpoint rules as `sql`.
 */
export const uninstall: MigrationStep = async (context) => {
  const names = stringListParam(context.step, 'modules');
  const work = context.migration.workingDatabase;
  if (context.dirty) await restoreCheckpoint(context);
  const marked = (
    await context.databases.query<{ name: string }>(work, `update ir_module_module set state = 'to remove' where name = any($1::varchar[]) and state = 'installed' returning name`, [names])
  ).map((row) => row.name);
  const states = await context.databases.moduleStates(work, names);
  const notInstalled = names.filter((name) => !marked.includes(name)).map((name) => ({ name, state: states.find((row) => row.name === name)?.state ?? 'unknown' }));
  await context.log(
    `uninstall ${context.step.id}: ${marked.length > 0 ? `marked ${marked.join(', ')} to remove (the next ERP update removes them)` : 'nothing to mark'}` +
      (notInstalled.length > 0 ? `; not installed: ${notInstalled.map(({ name, state }) => `${name} (${state})`).join(', ')}` : ''),
  );
  await takeCheckpoint(context);
  return done({ marked, notInstalled });
};
