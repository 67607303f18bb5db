import type { Request, Response, Router } from 'express';
import { getRecipe, listRecipes } from '#projections/recipes/recipes.ts';
import { roleAtLeast } from '#shared/auth/roles.ts';
import { HttpError } from '#shared/http/errors.ts';
import { checkRecipeText } from '#services/migrations/recipes/recipeText.ts';
import type { WebContext } from '../context.ts';
import { flash, render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf } from '../instances/instanceRequest.ts';
import { refusalOf } from '../migrations/migrationForm.ts';
import { editorFinding, formKey, lintAs, refusalFindings, type EditorFinding } from './recipeFindings.ts';
import { recipeTemplate } from './recipeTemplate.ts';

const FLAVORS = ['community', 'enterprise'] as const;

/** What the editor shows: the text as the user wrote it, where it goes, and what lint found. */
interface EditorView {
  mode: 'create' | 'edit';
  key?: string;
  flavor: string;
  stem: string;
  yaml: string;
  version?: number;
  findings: EditorFinding[];
  errors: Record<string, string>;
  /** Set after a validate that found no error. */
  validated?: boolean;
}

function showEditor(ctx: WebContext, req: Request, res: Response, view: EditorView) {
  const errorCount = view.findings.filter((finding) => finding.level === 'error').length;
  render(ctx, req, res, 'recipes/edit.njk', {
    ...view,
    errorCount,
    warningCount: view.findings.length - errorCount,
    flavors: FLAVORS,
    canSave: roleAtLeast(actorOf(res).role, 'admin'),
    findingsJson: JSON.stringify(view.findings.filter((finding) => finding.line !== null).map(({ level, line, column, message }) => ({ level, line, column, message }))),
  });
}

/** The admin pages of migration recipes: reading needs developer, saving admin. */
export function recipeRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/admin/recipes', async (req: Request, res: Response) => {
    const rows = (await listRecipes(ctx.readModel)).map((row) => {
      // Linted again: a rule added since it was saved counts now, as it does for a new migration.
      const linted = checkRecipeText(row.flavor, row.stem, row.text);
      return { ...row, name: linted.recipe?.name ?? null, errorCount: linted.errors.length, warningCount: linted.warnings.length, firstError: linted.errors[0] ?? null };
    });
    render(ctx, req, res, 'recipes/list.njk', { recipes: rows, canSave: roleAtLeast(actorOf(res).role, 'admin') });
  });

  route(router, 'GET', '/admin/recipes/new', (req: Request, res: Response) => {
    const flavor = req.query['flavor'] === 'enterprise' ? 'enterprise' : 'community';
    showEditor(ctx, req, res, { mode: 'create', flavor, stem: '18.0-19.0', yaml: recipeTemplate(flavor, '18.0', '19.0'), findings: [], errors: {} });
  });

  route(router, 'GET', '/admin/recipes/:flavor/:stem/edit', async (req: Request, res: Response) => {
    const key = formKey({ flavor: String(req.params['flavor']), stem: String(req.params['stem']) });
    const row = key ? await getRecipe(ctx.readModel, key.key) : undefined;
    if (!key || !row) throw new HttpError(404, `There is no recipe ${String(req.params['flavor'])}/${String(req.params['stem'])}.`);
    const linted = lintAs(key, row.text);
    showEditor(ctx, req, res, { mode: 'edit', key: key.key, flavor: key.flavor, stem: key.stem, yaml: row.text, version: row.version, findings: [...linted.errors, ...linted.warnings].map(editorFinding), errors: {} });
  });

  route(router, 'POST', '/admin/recipes/save', async (req: Request, res: Response) => {
    const fields = req.body as Record<string, unknown>;
    const text = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : '');
    const editing = text('key') !== '';
    const yaml = text('yaml').replace(/\r\n/g, '\n');
    const view: EditorView = { mode: editing ? 'edit' : 'create', ...(editing ? { key: text('key') } : {}), flavor: text('flavor'), stem: text('stem'), yaml, findings: [], errors: {} };
    const key = formKey({ key: text('key'), flavor: text('flavor'), stem: text('stem') });
    if (key) Object.assign(view, { flavor: key.flavor, stem: key.stem });
    const refuse = async (status: number) => {
      if (view.mode === 'edit' && view.key) view.version = (await getRecipe(ctx.readModel, view.key))?.version;
      res.status(status);
      showEditor(ctx, req, res, view);
    };
    if (!key) {
      view.errors = editing ? { _form: `${text('key')} is not a recipe key.` } : { ...(FLAVORS.includes(text('flavor') as never) ? {} : { flavor: 'choose community or enterprise' }), stem: 'the stem is <origin>-<destination>, e.g. 18.0-19.0' };
      return await refuse(422);
    }
    if (yaml.trim() === '') {
      view.errors = { yaml: 'the recipe is empty' };
      return await refuse(422);
    }
    const linted = lintAs(key, yaml);
    view.findings = [...linted.errors, ...linted.warnings].map(editorFinding);
    if (text('action') === 'validate') {
      view.validated = linted.errors.length === 0;
      return await refuse(linted.errors.length > 0 ? 422 : 200);
    }
    try {
      const saved = await ctx.controlPlane.saveRecipe(actorOf(res).user_id, editing ? { yaml, key: key.key } : { yaml, flavor: key.flavor, stem: key.stem });
      flash(req, 'success', saved.changed ? `Recipe ${saved.key} saved as version ${saved.version}. New migrations take it from now on; existing ones keep their copy until resynced.` : `Recipe ${saved.key} is unchanged (still version ${saved.version}).`);
      seeOther(res, '/admin/recipes');
    } catch (error) {
      const refusal = refusalOf(error);
      const answer = refusalFindings(refusal);
      view.errors = answer.errors;
      // The control-plane's findings are the ones that refused the save; the local lint adds the warnings.
      if (answer.findings.length > 0) view.findings = [...answer.findings, ...view.findings.filter((finding) => finding.level === 'warning')];
      await refuse(refusal.status === 409 || refusal.status === 404 ? refusal.status : 422);
    }
  });
}
