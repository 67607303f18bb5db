/**
 * A migration recipe: how one hop (one major ERP version) is migrated for one flavor, as the YAML
 * file says it (`schemas/recipes/Recipe.v1.json`, format 1). Field names are the file's. The
 * format is described in this folder's README.md.
 */

export type Flavor = 'community' | 'enterprise';
export type Engine = 'openupgrade' | 'upgrade_service';

export interface Route {
  origin: string;
  destination: string;
}

export const STEP_KINDS = [
  'check',
  'modules',
  'filestore',
  'disk',
  'fetch',
  'restore',
  'sql',
  'uninstall',
  'erp',
  'upgrade_service',
  'gate',
  'backup',
  'dump',
  'filestore_archive',
  'instance',
  'report',
] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** What a pre-flight entry may be: inspections of the source that change nothing. */
export const PREFLIGHT_KINDS: readonly StepKind[] = ['check', 'modules', 'filestore', 'disk'];

export type CheckExpectation = { equals: string | number } | { matches: string } | { rows: number };

interface StepBase {
  id: string;
  when?: string;
  /** A duration such as `2h`, `30m`, `45s`; the recipe's default when absent. */
  timeout?: string;
  retries?: number;
  /** Which hop of a chained recipe the step comes from (1, 2, …); set by `chainRecipes` only. */
  hop?: number;
}

export type CheckStep = StepBase & { kind: 'check'; sql: string; expect?: CheckExpectation; severity?: 'error' | 'warning' };
export type ErpStep = StepBase & { kind: 'erp'; version: 'origin' | 'destination'; args?: string[]; env?: Record<string, string> };

export type RecipeStep =
  | CheckStep
  | ErpStep
  | (StepBase & { kind: 'modules'; allow_missing?: string[] })
  | (StepBase & { kind: 'filestore'; max_missing?: number })
  | (StepBase & { kind: 'disk'; free_factor: number })
  | (StepBase & { kind: 'sql'; sql: string })
  | (StepBase & { kind: 'uninstall'; modules: string[] })
  | (StepBase & { kind: 'gate'; message: string })
  | (StepBase & { kind: 'fetch' | 'restore' | 'upgrade_service' | 'backup' | 'dump' | 'filestore_archive' | 'instance' | 'report' });

export interface Recipe {
  format: 1;
  name: string;
  description?: string;
  flavor: Flavor;
  stem: string;
  /** Defaulted from the flavor when the file leaves it out. */
  engine: Engine;
  route: Route;
  defaults: { timeout?: string; retries?: number };
  /** Environment of every `erp` step; a step's own `env` wins. */
  env: Record<string, string>;
  preflight: RecipeStep[];
  steps: RecipeStep[];
  /** The hops of a chained recipe, in order (`step.hop` indexes it from 1); absent for one hop. */
  hops?: Route[];
}

/** One finding about a recipe. `path` is a JSON pointer into the document, such as `/steps/4/args/2`. */
export interface RecipeProblem {
  level: 'error' | 'warning';
  path: string;
  /** 1-based line in the YAML text, when the finding points at something in it. */
  line?: number;
  /** 1-based column of that line where the thing pointed at starts. */
  column?: number;
  message: string;
}

/** Every entry of pre-flight and steps with its JSON pointer. */
export const allSteps = (recipe: Pick<Recipe, 'preflight' | 'steps'>): [string, RecipeStep][] => [
  ...recipe.preflight.map((step, index): [string, RecipeStep] => [`/preflight/${index}`, step]),
  ...recipe.steps.map((step, index): [string, RecipeStep] => [`/steps/${index}`, step]),
];

/** `community` recipes upgrade with OpenUpgrade, `enterprise` ones through the vendor's service. */
export const defaultEngine = (flavor: Flavor): Engine => (flavor === 'enterprise' ? 'upgrade_service' : 'openupgrade');

/** The name a recipe is stored and snapshotted under: `<flavor>.<stem>`, e.g. `community.16.0-17.0`. */
export const recipeKey = (recipe: Pick<Recipe, 'flavor' | 'stem'>): string => `${recipe.flavor}.${recipe.stem}`;

/** The major number of a version such as `16.0`. */
export const majorOf = (version: string): number => Number.parseInt(version, 10);

/** Whether the step runs a `--load` that includes OpenUpgrade's framework. */
export function loadsOpenUpgrade(step: ErpStep): boolean {
  const args = step.args ?? [];
  return args.some((arg, index) => {
    const value = arg.startsWith('--load=') ? arg.slice('--load='.length) : arg === '--load' ? args[index + 1] : undefined;
    return value?.split(',').some((module) => module.trim() === 'openupgrade_framework') ?? false;
  });
}
