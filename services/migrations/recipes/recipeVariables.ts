/**
 * `${…}` variables in a recipe's strings and the `when` expressions that use them.
 *
 * Plan-time variables are replaced when the plan is built; run-time ones stay in the plan as
 * written and the executor replaces them in every string of a step's params.
 */

/** Replaced by `materializePlan`. `hop.*` is the recipe's own route (a hop of a chained route). */
export const PLAN_VARIABLES = [
  'migration.origin',
  'migration.destination',
  'migration.purpose',
  'migration.flavor',
  'migration.engine',
  'migration.slug',
  'hop.origin',
  'hop.destination',
] as const;
/** Left for the executor: the upgrade scripts' path for the step's version, and the run's number. */
export const RUN_VARIABLES = ['paths.upgrade', 'run.number'] as const;

export type PlanVariable = (typeof PLAN_VARIABLES)[number];
export type VariableValues = Readonly<Record<PlanVariable, string>>;

const REFERENCE = /\$\{([^}]*)\}/g;

/** The names referenced in `text`, and whether a `${` is left open. */
export function variablesIn(text: string): { names: string[]; unclosed: boolean } {
  const names = [...text.matchAll(REFERENCE)].map((match) => match[1] ?? '');
  return { names, unclosed: text.replace(REFERENCE, '').includes('${') };
}

export const isPlanVariable = (name: string): name is PlanVariable => (PLAN_VARIABLES as readonly string[]).includes(name);
export const isKnownVariable = (name: string): boolean => isPlanVariable(name) || (RUN_VARIABLES as readonly string[]).includes(name);

/** `text` with the plan-time variables replaced; any other `${…}` is kept as written. */
export const substitute = (text: string, values: VariableValues): string =>
  text.replace(REFERENCE, (whole, name: string) => (isPlanVariable(name) ? values[name] : whole));

/** Every string inside a JSON value substituted (keys are left alone). */
export function substituteDeep<T>(value: T, values: VariableValues): T {
  if (typeof value === 'string') return substitute(value, values) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => substituteDeep(item, values)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteDeep(item, values)])) as T;
  }
  return value;
}

/** A `when`: one comparison of two operands, each a `${variable}`, a bare word or a quoted string. */
export interface Condition {
  left: string;
  operator: '==' | '!=';
  right: string;
}

const OPERAND = String.raw`\$\{[a-z.]+\}|'[^']*'|"[^"]*"|[A-Za-z0-9_.-]+`;
const CONDITION = new RegExp(String.raw`^\s*(${OPERAND})\s*(==|!=)\s*(${OPERAND})\s*$`);

const unquote = (operand: string): string => (/^(['"]).*\1$/.test(operand) ? operand.slice(1, -1) : operand);

/** The parsed condition, or null when `when` is not one simple comparison. */
export function parseCondition(when: string): Condition | null {
  const match = CONDITION.exec(when);
  if (!match) return null;
  const [, left = '', operator, right = ''] = match;
  return { left, operator: operator === '!=' ? '!=' : '==', right };
}

/** The value of `when` for this migration; a `when` that does not parse is false. */
export function evaluateCondition(when: string, values: VariableValues): boolean {
  const condition = parseCondition(when);
  if (!condition) return false;
  const left = substitute(unquote(condition.left), values);
  const right = substitute(unquote(condition.right), values);
  return condition.operator === '==' ? left === right : left !== right;
}
