import type { PlannedStep } from '#shared/workflow/plan.ts';
import { parseDuration } from './parseDuration.ts';
import type { Engine, Flavor, Recipe, RecipeStep, Route } from './recipe.ts';
import { evaluateCondition, substituteDeep, type VariableValues } from './recipeVariables.ts';

/** What a plan needs to know of the migration it is for. */
export interface MigrationFacts {
  origin: string;
  destination: string;
  purpose: string;
  flavor: Flavor;
  engine: Engine;
  slug: string;
}

export interface MaterializeOptions {
  /** Leave the pre-flight out (a run-anyway after a failed pre-flight). */
  skipPreflight?: boolean;
}

/** Steps that bring the customer's database in: they run before the pre-flight, which checks that database. */
const INPUT_KINDS = new Set(['fetch', 'restore']);

/** The wait before a step's first retry (doubled for each later one). */
export const RETRY_BACKOFF_S = 30;

/** Values go into SQL and command lines as text, so they are kept to plain words. */
const PLAIN_VALUE = /^[A-Za-z0-9._-]+$/;

/** Why `recipe` cannot make this migration's plan, or null when it can. */
export function refuseRecipe(recipe: Recipe, migration: MigrationFacts): string | null {
  for (const [name, value] of Object.entries(migration)) {
    if (!PLAIN_VALUE.test(String(value))) return `the migration's ${name} ${JSON.stringify(value)} is not a plain word ([A-Za-z0-9._-])`;
  }
  if (recipe.route.origin !== migration.origin || recipe.route.destination !== migration.destination) {
    return `the recipe goes from ${recipe.route.origin} to ${recipe.route.destination}, the migration from ${migration.origin} to ${migration.destination}`;
  }
  if (recipe.flavor !== migration.flavor) return `the recipe is for ${recipe.flavor}, the migration is ${migration.flavor}`;
  if (recipe.engine !== migration.engine) return `the recipe upgrades with ${recipe.engine}, the migration asks for ${migration.engine}`;
  return null;
}

/**
 * The plan of a migration run from its (possibly chained) recipe: the steps that bring the
 * database in (fetch, restore), then the pre-flight steps that check it (`params.phase`
 * `preflight`), then the other steps (`phase` `steps`). Plan-time variables are replaced;
 * `${paths.upgrade}` and `${run.number}` are left for the executor. A step whose `when` is false
 * is left out of the plan (it was never part of this run). Pure and deterministic: the same
 * recipe and migration give the same plain-JSON plan.
 * @throws when `refuseRecipe` refuses the pair.
 */
export function materializePlan(recipe: Recipe, migration: MigrationFacts, options: MaterializeOptions = {}): PlannedStep[] {
  const refusal = refuseRecipe(recipe, migration);
  if (refusal) throw new Error(refusal);
  const hops = recipe.hops ?? [recipe.route];
  const plan = (phase: 'preflight' | 'steps', steps: readonly RecipeStep[]): PlannedStep[] =>
    steps.flatMap((step) => {
      const number = step.hop ?? 1;
      const hop = hops[number - 1] ?? recipe.route;
      const values = variableValues(migration, hop);
      if (step.when !== undefined && !evaluateCondition(step.when, values)) return [];
      return [plannedStep(step, recipe, phase, { number, ...hop }, values)];
    });
  // The pre-flight checks look at the customer's database: it is fetched and restored first.
  const steps = plan('steps', recipe.steps);
  const input = steps.filter((step) => INPUT_KINDS.has(step.type));
  const rest = steps.filter((step) => !INPUT_KINDS.has(step.type));
  return [...input, ...(options.skipPreflight ? [] : plan('preflight', recipe.preflight)), ...rest];
}

function plannedStep(step: RecipeStep, recipe: Recipe, phase: 'preflight' | 'steps', hop: Route & { number: number }, values: VariableValues): PlannedStep {
  const params = substituteDeep({ phase, hop: { number: hop.number, origin: hop.origin, destination: hop.destination }, ...kindParams(step, recipe, hop) }, values);
  if (step.kind === 'gate') return { id: step.id, type: step.kind, params };
  const timeout = step.timeout ?? recipe.defaults.timeout;
  const timeoutS = timeout === undefined ? null : parseDuration(timeout);
  const retries = step.retries ?? recipe.defaults.retries ?? 0;
  return {
    id: step.id,
    type: step.kind,
    params,
    ...(timeoutS ? { timeoutS } : {}),
    ...(retries > 0 ? { retries: { count: retries, backoffS: RETRY_BACKOFF_S } } : {}),
  };
}

/** What each kind needs, defaults filled in and names as the executor's TypeScript spells them. */
function kindParams(step: RecipeStep, recipe: Recipe, hop: Route): Record<string, unknown> {
  switch (step.kind) {
    case 'check':
      return { sql: step.sql, expect: step.expect ?? { rows: 0 }, severity: step.severity ?? 'error' };
    case 'modules':
      return { allowMissing: step.allow_missing ?? [] };
    case 'filestore':
      return { maxMissing: step.max_missing ?? 0 };
    case 'disk':
      return { freeFactor: step.free_factor };
    case 'sql':
      return { sql: step.sql };
    case 'uninstall':
      return { modules: step.modules };
    case 'erp':
      return { version: step.version, erpVersion: hop[step.version], args: step.args ?? [], env: { ...recipe.env, ...step.env } };
    case 'upgrade_service':
      return { erpVersion: hop.destination };
    case 'gate':
      return { message: step.message };
    case 'fetch':
    case 'restore':
    case 'backup':
    case 'dump':
    case 'filestore_archive':
    case 'instance':
    case 'report':
      return {};
    default: {
      const unknown: never = step;
      return unknown;
    }
  }
}

const variableValues = (migration: MigrationFacts, hop: Route): VariableValues => ({
  'migration.origin': migration.origin,
  'migration.destination': migration.destination,
  'migration.purpose': migration.purpose,
  'migration.flavor': migration.flavor,
  'migration.engine': migration.engine,
  'migration.slug': migration.slug,
  'hop.origin': hop.origin,
  'hop.destination': hop.destination,
});
