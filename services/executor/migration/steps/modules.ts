import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DEFAULT_ADDONS_PATH, knownModules } from '#services/erp-standin/knownModules.ts';
import { readinessKey } from '#services/migrations/domain/readinessKey.ts';
import { done, fail } from '#shared/workflow/stepOutcome.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { hopReadiness } from '../readiness/moduleReadiness.ts';
import { hopDestination, hopOrigin, stringListParam } from './stepParams.ts';

/** How many missing modules a failure names. */
const NAMED = 20;

/**
 * Coverage: the modules installed in the working database that the destination ERP cannot load,
 * unless `params.allowMissing` (globs: `*`, `?`) lets them go. Which modules a destination ships
 * is known only for Forja's ERP stand-in (its standard modules and the addons on the run's addons
 * path). For a real ERP no module list is available to the executor yet, so the step says so in
 * its facts' `warnings` and passes: it checks nothing it cannot know. OpenUpgrade's own coverage
 * (which modules have migration scripts) is not judged either; the post-upgrade check of
 * module versions catches what it misses.
 */
export const modules: MigrationStep = async (context) => {
  const { step } = context;
  const allowed = stringListParam(step, 'allowMissing').map(globPattern);
  const destination = hopDestination(step, context.migration.destination);
  const installed = (
    await context.databases.query<{ name: string }>(context.migration.workingDatabase, `select name from ir_module_module where state in ('installed', 'to upgrade') order by name`, undefined, {
      readOnly: true,
    })
  ).map((row) => row.name);
  if (!context.runtime.usesStandin(destination)) {
    const warning = `modules ${step.id}: the modules the ${destination} ERP ships are not known to Forja for a real ERP; coverage of the ${installed.length} installed module(s) not checked`;
    await context.log(warning);
    return done({ installed: installed.length, checked: false, warnings: [warning] });
  }
  await context.prepareCode(destination);
  const spec = context.erpRunSpec(destination);
  const known = knownModules(spec.addonsPath);
  const unknown = installed.filter((name) => !known.has(name));
  const missing = unknown.filter((name) => !allowed.some((pattern) => pattern.test(name)));
  const allowedMissing = unknown.filter((name) => !missing.includes(name));
  const readiness = hopReadiness({
    origin: hopOrigin(step, context.migration.origin),
    destination,
    installed,
    // The stand-in's own folders come last, as knownModules reads them: base lives there.
    addonsPath: [...spec.addonsPath, ...DEFAULT_ADDONS_PATH],
    checkout: spec.sourceDir,
    openupgrade: context.migration.engine === 'openupgrade' ? (spec.addonsPath.find((dir) => existsSync(join(dir, 'openupgrade_framework'))) ?? null) : null,
    allowed,
  });
  await context.blobs.put(readinessKey(context.migration.slug, context.run.number, destination), Readable.from([JSON.stringify(readiness)]));
  await context.log(`modules ${step.id}: readiness for ${destination}: ${readiness.counts.ok} ok, ${readiness.counts.warning} warning(s), ${readiness.counts.blocks} blocking`);
  if (missing.length > 0) {
    const listed = `${missing.slice(0, NAMED).join(', ')}${missing.length > NAMED ? ` and ${missing.length - NAMED} more` : ''}`;
    return fail(`modules ${step.id}: ${missing.length} installed module(s) the ${destination} ERP cannot load: ${listed}`, { retryable: false });
  }
  await context.log(`modules ${step.id}: the ${destination} ERP can load all ${installed.length} installed module(s)${allowedMissing.length > 0 ? ` but ${allowedMissing.join(', ')} (allowed missing)` : ''}`);
  return done({ installed: installed.length, checked: true, allowedMissing });
};

/** A glob (`theme_*`, `l10n_??`) as a whole-name regular expression. */
function globPattern(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  return new RegExp(`^${body}$`);
}
