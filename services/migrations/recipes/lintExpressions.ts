import { allSteps, type Recipe, type RecipeProblem } from './recipe.ts';
import { PLAN_VARIABLES, RUN_VARIABLES, isKnownVariable, isPlanVariable, parseCondition, variablesIn } from './recipeVariables.ts';

const KNOWN = [...PLAN_VARIABLES, ...RUN_VARIABLES].join(', ');

/**
 * `${…}` references name known variables; a `when` is one comparison of plan-time values (it is
 * decided when the plan is built, before any run exists); a check's `matches` is a valid
 * regular expression.
 */
export function lintExpressions(recipe: Recipe): RecipeProblem[] {
  const problems: RecipeProblem[] = [];
  const strings: [string, string][] = [['/name', recipe.name], ...Object.entries(recipe.env).map(([name, value]): [string, string] => [`/env/${name}`, value])];
  for (const [path, step] of allSteps(recipe)) {
    strings.push(...stringsIn(step, path));
    if (step.when !== undefined) problems.push(...lintWhen(step.when, `${path}/when`));
    if (step.kind === 'check' && step.expect && 'matches' in step.expect) {
      const pattern = step.expect.matches.replace(/\$\{[^}]*\}/g, 'x');
      try {
        new RegExp(pattern);
      } catch (cause) {
        problems.push({ level: 'error', path: `${path}/expect/matches`, message: `not a regular expression: ${(cause as Error).message}` });
      }
    }
  }
  for (const [path, text] of strings) {
    const { names, unclosed } = variablesIn(text);
    if (unclosed) problems.push({ level: 'error', path, message: 'a "${" is not closed by "}"' });
    for (const name of names) {
      if (!isKnownVariable(name)) problems.push({ level: 'error', path, message: `unknown variable \${${name}} (known: ${KNOWN})` });
    }
  }
  return problems;
}

function lintWhen(when: string, path: string): RecipeProblem[] {
  const condition = parseCondition(when);
  if (!condition) return [{ level: 'error', path, message: 'when is one comparison, such as "${migration.purpose} == production" (== or !=)' }];
  return [condition.left, condition.right].flatMap((operand) =>
    variablesIn(operand).names.flatMap((name): RecipeProblem[] =>
      // Unknown names are reported with every other string's.
      isPlanVariable(name) || !isKnownVariable(name) ? [] : [{ level: 'error', path, message: `\${${name}} is only known while the run runs; when is decided as the plan is built` }],
    ),
  );
}

/** Every string value inside a step, with its path. */
function stringsIn(value: unknown, path: string): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item: unknown, index) => stringsIn(item, `${path}/${index}`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => stringsIn(item, `${path}/${key}`));
  }
  return [];
}
