import type { ErrorObject } from 'ajv';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import { schemaValidator } from '#shared/schemaValidator.ts';
import { lintRecipe } from './lintRecipe.ts';
import { defaultEngine, type Recipe, type RecipeProblem } from './recipe.ts';

/** The file as the schema accepts it: what `parseRecipe` defaults may be left out. */
type RecipeDocument = Omit<Recipe, 'engine' | 'defaults' | 'env' | 'preflight' | 'hops'> & Partial<Pick<Recipe, 'engine' | 'defaults' | 'env' | 'preflight'>>;

export type ParsedRecipe = { recipe: Recipe; warnings: RecipeProblem[] } | { errors: RecipeProblem[]; warnings: RecipeProblem[] };

const validRecipe = schemaValidator<RecipeDocument>('recipes/Recipe.v1.json');

/**
 * A recipe from its YAML text: YAML errors, then JSON Schema errors, then the lint rules; each
 * finding with the line and column it points at. It is usable when nothing is an error; warnings come
 * either way.
 */
export function parseRecipe(text: string): ParsedRecipe {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): { line: number; column: number } => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const warnings: RecipeProblem[] = doc.warnings.map((warning) => ({ level: 'warning', path: '/', ...at(warning.pos[0]), message: warning.message }));
  if (doc.errors.length > 0) {
    const message = (error: (typeof doc.errors)[number]): string => (error.code === 'MULTIPLE_DOCS' ? 'a recipe is one YAML document: remove the "---" and what follows' : error.message);
    return { errors: doc.errors.map((error) => ({ level: 'error', path: '/', ...at(error.pos[0]), message: message(error) })), warnings };
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (cause) {
    // Too many aliases (a "billion laughs" document) and the like.
    return { errors: [{ level: 'error', path: '/', message: (cause as Error).message }], warnings };
  }
  const withLine = (problem: RecipeProblem): RecipeProblem => {
    const offset = offsetOf(doc, problem.path);
    return offset === undefined ? problem : { ...problem, ...at(offset) };
  };
  if (!validRecipe(data)) return { errors: schemaProblems(validRecipe.errors ?? [], data).map(withLine), warnings };
  const recipe: Recipe = {
    ...data,
    engine: data.engine ?? defaultEngine(data.flavor),
    defaults: data.defaults ?? {},
    env: data.env ?? {},
    preflight: data.preflight ?? [],
  };
  const findings = lintRecipe(recipe).map(withLine);
  const errors = findings.filter((finding) => finding.level === 'error');
  warnings.push(...findings.filter((finding) => finding.level === 'warning'));
  return errors.length > 0 ? { errors, warnings } : { recipe, warnings };
}

/** ajv's errors as findings: the noise of `if`/`anyOf` branches folded into one message each. */
function schemaProblems(errors: readonly ErrorObject[], data: unknown): RecipeProblem[] {
  const anyOfPaths = new Set(errors.filter((error) => error.keyword === 'anyOf').map((error) => error.instancePath));
  const problems = new Map<string, RecipeProblem>();
  for (const error of errors) {
    if (error.keyword === 'if' || (anyOfPaths.has(error.instancePath) && error.keyword !== 'anyOf')) continue;
    const path = error.instancePath || '/';
    const problem = ((): RecipeProblem => {
      switch (error.keyword) {
        case 'additionalProperties':
          return { level: 'error', path: `${error.instancePath}/${String(error.params.additionalProperty)}`, message: `unknown field "${String(error.params.additionalProperty)}" here` };
        case 'required':
          return { level: 'error', path, message: `missing field "${String(error.params.missingProperty)}"` };
        case 'enum':
          return { level: 'error', path, message: `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}` };
        case 'const':
          return { level: 'error', path, message: `must be ${JSON.stringify(error.params.allowedValue)}` };
        case 'anyOf': {
          const types = errors.filter((other) => other.instancePath === error.instancePath && other.keyword === 'type').map((other) => String(other.params.type));
          return { level: 'error', path, message: `must be ${types.join(' or ')}` };
        }
        case 'type':
          if (path === '/') return { level: 'error', path, message: 'a recipe is a YAML mapping: format, name, flavor, stem, route, steps, …' };
          if (typeof valueAt(data, error.instancePath) === 'number' && error.params.type === 'string') {
            return { level: 'error', path, message: 'must be a string: quote it (YAML reads 16.0 as the number 16)' };
          }
          return { level: 'error', path, message: error.message ?? 'is invalid' };
        default:
          return { level: 'error', path, message: error.message ?? 'is invalid' };
      }
    })();
    problems.set(`${problem.path} ${problem.message}`, problem);
  }
  return [...problems.values()];
}

const segments = (pointer: string): string[] => (pointer === '/' || pointer === '' ? [] : pointer.slice(1).split('/').map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~')));

function valueAt(data: unknown, pointer: string): unknown {
  let value = data;
  for (const segment of segments(pointer)) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
  return value;
}

/** Where the deepest node on `pointer` that the document has starts (a map entry's key). */
function offsetOf(doc: Document, pointer: string): number | undefined {
  let node: unknown = doc.contents;
  let offset = isMap(node) || isSeq(node) || isScalar(node) ? node.range?.[0] : undefined;
  for (const segment of segments(pointer)) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
      if (!pair) break;
      offset = isScalar(pair.key) ? (pair.key.range?.[0] ?? offset) : offset;
      node = pair.value;
    } else if (isSeq(node)) {
      const item: unknown = node.items[Number(segment)];
      if (!(isMap(item) || isSeq(item) || isScalar(item))) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return offset;
}
