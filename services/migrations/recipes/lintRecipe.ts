import { ERP_VERSIONS } from '#services/instances/domain/instance.ts';
import { lintExpressions } from './lintExpressions.ts';
import { statementCount } from './sqlStatements.ts';
import { PREFLIGHT_KINDS, allSteps, loadsOpenUpgrade, majorOf, type ErpStep, type Recipe, type RecipeProblem, type StepKind } from './recipe.ts';

/** Kinds that read or change the working database (or its filestore): they run after `restore`. */
const TOUCHES_DATABASE: ReadonlySet<StepKind> = new Set<StepKind>([
  'check', 'modules', 'filestore', 'disk', 'sql', 'uninstall', 'erp', 'upgrade_service', 'backup', 'dump', 'filestore_archive', 'instance',
]);
const ID = /^[a-z][a-z0-9_]*$/;

const error = (path: string, message: string): RecipeProblem => ({ level: 'error', path, message });
const warning = (path: string, message: string): RecipeProblem => ({ level: 'warning', path, message });

/**
 * The rules a recipe that passed the JSON Schema must still follow. Errors make it unusable;
 * warnings are shown but the recipe runs.
 */
export function lintRecipe(recipe: Recipe): RecipeProblem[] {
  return [...lintRoute(recipe), ...lintIds(recipe), ...lintPreflight(recipe), ...lintOrder(recipe), ...lintEngine(recipe), ...lintChecks(recipe), ...lintExpressions(recipe)];
}

function lintRoute({ route, stem }: Recipe): RecipeProblem[] {
  const problems: RecipeProblem[] = [];
  const catalog: readonly string[] = ERP_VERSIONS;
  for (const end of ['origin', 'destination'] as const) {
    if (!catalog.includes(route[end])) problems.push(error(`/route/${end}`, `${route[end]} is not a version Forja runs (${[...catalog].sort().join(', ')})`));
  }
  if (majorOf(route.destination) !== majorOf(route.origin) + 1) {
    problems.push(error('/route/destination', `one major version per hop: ${route.origin} -> ${route.destination} is not a hop (skipping versions is not supported; chain one recipe per hop)`));
  }
  if (stem !== `${route.origin}-${route.destination}`) problems.push(error('/stem', `the stem must be "${route.origin}-${route.destination}", the route's origin and destination`));
  return problems;
}

function lintIds(recipe: Recipe): RecipeProblem[] {
  const problems: RecipeProblem[] = [];
  const seen = new Map<string, string>();
  for (const [path, step] of allSteps(recipe)) {
    if (!ID.test(step.id)) problems.push(error(`${path}/id`, `step ids are lowercase words: [a-z][a-z0-9_]*`));
    const first = seen.get(step.id);
    if (first) problems.push(error(`${path}/id`, `step id "${step.id}" is already used at ${first}`));
    else seen.set(step.id, path);
  }
  return problems;
}

/** A check runs its sql as one read-only statement (the executor refuses more): said here, before a run fails on it. */
function lintChecks(recipe: Recipe): RecipeProblem[] {
  return allSteps(recipe).flatMap(([path, step]) => {
    if (step.kind !== 'check') return [];
    const statements = statementCount(step.sql);
    if (statements === 1) return [];
    return [error(`${path}/sql`, statements === 0 ? `"${step.id}" has no SQL statement to run` : `"${step.id}" holds ${statements} SQL statements: a check runs one statement that only reads (use a sql step to change the database)`)];
  });
}

function lintPreflight(recipe: Recipe): RecipeProblem[] {
  return recipe.preflight.flatMap((step, index) =>
    PREFLIGHT_KINDS.includes(step.kind) ? [] : [error(`/preflight/${index}/kind`, `pre-flight only inspects the source: ${PREFLIGHT_KINDS.join(', ')}; move "${step.kind}" to steps`)],
  );
}

/** fetch, then restore, then whatever touches the database; each of fetch and restore once. */
function lintOrder({ steps }: Recipe): RecipeProblem[] {
  const problems: RecipeProblem[] = [];
  const fetch = steps.findIndex((step) => step.kind === 'fetch');
  const restore = steps.findIndex((step) => step.kind === 'restore');
  if (fetch < 0) problems.push(error('/steps', 'no fetch step: a recipe fetches the source once, first'));
  if (restore < 0) problems.push(error('/steps', 'no restore step: a recipe restores the fetched source once, before it touches the database'));
  if (fetch >= 0 && restore >= 0 && restore < fetch) problems.push(error(`/steps/${restore}`, 'restore runs after fetch'));
  steps.forEach((step, index) => {
    if ((step.kind === 'fetch' && index !== fetch) || (step.kind === 'restore' && index !== restore)) problems.push(error(`/steps/${index}`, `a recipe has one ${step.kind} step`));
    if ((step.kind === 'fetch' || step.kind === 'restore') && step.when !== undefined) problems.push(error(`/steps/${index}/when`, `${step.kind} always runs: it takes no when`));
    // Without a restore at all, its own error says enough.
    if (TOUCHES_DATABASE.has(step.kind) && index < restore) problems.push(error(`/steps/${index}`, `"${step.id}" touches the database: it runs after fetch and restore`));
  });
  return problems;
}

/**
 * OpenUpgrade recipes upgrade with an `erp` run of the destination that loads
 * openupgrade_framework; upgrade_service recipes (every enterprise one) through the vendor's
 * service. A backup precedes the upgrade and a check follows it.
 */
function lintEngine(recipe: Recipe): RecipeProblem[] {
  const problems: RecipeProblem[] = [];
  const destinationRuns = recipe.steps.flatMap((step, index) => (step.kind === 'erp' && step.version === 'destination' ? [[index, step] as [number, ErpStep]] : []));
  const serviceRuns = recipe.steps.flatMap((step, index) => (step.kind === 'upgrade_service' ? [index] : []));
  if (recipe.flavor === 'enterprise' && recipe.engine !== 'upgrade_service') problems.push(error('/engine', 'enterprise recipes upgrade through the upgrade service: engine upgrade_service'));
  let upgrades: number[];
  if (recipe.engine === 'openupgrade') {
    for (const index of serviceRuns) problems.push(error(`/steps/${index}`, 'an openupgrade recipe does not call the upgrade service; use engine upgrade_service'));
    for (const [index, step] of destinationRuns) {
      if (loadsOpenUpgrade(step)) continue;
      problems.push(warning(`/steps/${index}/args`, `"${step.id}" runs the destination without --load=…,openupgrade_framework: OpenUpgrade's migration scripts will not run`));
    }
    if (destinationRuns.length === 0) problems.push(error('/steps', 'nothing upgrades: an openupgrade recipe needs an erp step of version destination'));
    upgrades = destinationRuns.filter(([, step]) => loadsOpenUpgrade(step)).map(([index]) => index);
  } else {
    for (const [index, step] of destinationRuns) {
      if (loadsOpenUpgrade(step)) problems.push(error(`/steps/${index}/args`, `"${step.id}" loads openupgrade_framework, but this recipe upgrades through the upgrade service, not OpenUpgrade`));
    }
    if (serviceRuns.length === 0) problems.push(error('/steps', 'nothing upgrades: an upgrade_service recipe needs an upgrade_service step'));
    upgrades = serviceRuns;
  }
  const first = upgrades[0];
  const last = upgrades.at(-1);
  if (first !== undefined && !recipe.steps.slice(0, first).some((step) => step.kind === 'backup')) {
    problems.push(warning(`/steps/${first}`, 'no backup before the upgrade: take one (kind backup) so a failed run can be looked at'));
  }
  if (last !== undefined && !recipe.steps.slice(last + 1).some((step) => step.kind === 'check' || step.kind === 'modules')) {
    problems.push(warning(`/steps/${last}`, 'nothing checks the upgrade: add a check that every installed module reached the destination version'));
  }
  return problems;
}
