import type { Request, Response, Router } from 'express';
import { listRecipes, type RecipeListRow } from '#projections/recipes/recipes.ts';
import { HttpError, RequestValidationError } from '#shared/http/errors.ts';
import { RecipeLintError } from '#services/migrations/domain/savedRecipe.decider.ts';
import type { RecipeProblem } from '#services/migrations/recipes/recipe.ts';
import { checkRecipeText, RECIPE_KEY } from '#services/migrations/recipes/recipeText.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody } from '../http/validate.ts';
import { commandMetadata } from '../projects/project.api.ts';
import type { RecipeSaveInput } from './recipeBook.ts';

export const RECIPE_READ_MODELS = ['recipes'] as const;

const findingOut = (finding: RecipeProblem) => ({ level: finding.level, path: finding.path, line: finding.line ?? null, column: finding.column ?? null, message: finding.message });

/** A recipe as the API shows it: linted with today's rules, not the ones it was saved under. */
export function recipeOut(row: RecipeListRow, withText: boolean) {
  const linted = checkRecipeText(row.flavor, row.stem, row.text);
  return {
    key: row.key,
    flavor: row.flavor,
    stem: row.stem,
    version: row.version,
    sha256: row.sha256,
    origin: row.origin,
    saved_by: row.saved_by === 'system' ? 'system' : (row.saved_by_email ?? row.saved_by),
    saved_at: row.saved_at.toISOString(),
    usable: linted.errors.length === 0,
    errors: linted.errors.map(findingOut),
    warnings: linted.warnings.map(findingOut),
    used_by: row.used_by,
    ...(withText ? { yaml: row.text } : {}),
  };
}

/** A refused save as a 422: each lint error with its line and column in `loc`, its JSON pointer in the message. */
export function lintRefusal(error: RecipeLintError): RequestValidationError {
  const errors = error.findings.filter((finding) => finding.level === 'error');
  return new RequestValidationError(
    errors.map((finding) => ({
      loc: ['body', 'yaml', ...(finding.line ? [finding.line] : []), ...(finding.line && finding.column ? [finding.column] : [])],
      msg: `${finding.path === '/' ? '' : `${finding.path}: `}${finding.message}`,
      type: 'value_error.recipe',
    })),
  );
}

/** `{flavor}/{stem}` of the path as a key, else 422 naming them. */
function pathKey(req: Request): string {
  const key = `${String(req.params['flavor'])}.${String(req.params['stem'])}`;
  if (!RECIPE_KEY.test(key)) throw new RequestValidationError([{ loc: ['path', 'stem'], msg: 'a recipe is <flavor>/<origin>-<destination>, e.g. community/16.0-17.0', type: 'value_error.recipe_key' }]);
  return key;
}

/** `/api/v1/recipes` (read: developer; save: admin) and web's `/internal/recipes/save`. */
export function recipeApi(router: Router, ctx: ControlPlaneContext): void {
  const save = async (req: Request, res: Response, input: RecipeSaveInput) => {
    try {
      const saved = await ctx.recipes.save(input, commandMetadata(req, actingUser(res.locals)));
      await ctx.waitForProjections(saved.lastGlobalPosition, RECIPE_READ_MODELS);
      return saved;
    } catch (error) {
      throw error instanceof RecipeLintError ? lintRefusal(error) : error;
    }
  };
  const one = async (key: string) => {
    const row = (await listRecipes(ctx.readModel)).find((recipe) => recipe.key === key);
    if (!row) throw new HttpError(404, `there is no recipe ${key}`);
    return row;
  };

  route(router, ctx, 'GET', '/api/v1/recipes', async (_req: Request, res: Response) => {
    res.json((await listRecipes(ctx.readModel)).map((row) => recipeOut(row, false)));
  });

  route(router, ctx, 'GET', '/api/v1/recipes/:flavor/:stem', async (req: Request, res: Response) => {
    res.json(recipeOut(await one(pathKey(req)), true));
  });

  route(router, ctx, 'PUT', '/api/v1/recipes/:flavor/:stem', validateBody('api/RecipeText.v1.json'), async (req: Request, res: Response) => {
    const key = pathKey(req);
    const exists = (await ctx.recipes.current(key)) !== undefined;
    const [flavor, stem] = [String(req.params['flavor']), String(req.params['stem'])];
    const { yaml } = req.body as { yaml: string };
    await save(req, res, exists ? { yaml, key } : { yaml, flavor, stem });
    res.json(recipeOut(await one(key), true));
  });

  route(router, ctx, 'POST', '/internal/recipes/save', validateBody('api/RecipeSave.v1.json'), async (req: Request, res: Response) => {
    const saved = await save(req, res, req.body as RecipeSaveInput);
    res.json({ key: saved.key, version: saved.version, changed: saved.changed, warnings: saved.warnings.map(findingOut) });
  });
}
