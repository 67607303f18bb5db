import type { Request, Response, Router } from 'express';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { flash, render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf, queryString } from '../instances/instanceRequest.ts';
import { createBody, CREATE_FIELDS, EDIT_FIELDS, editBody, errorsByField, FORM_CHOICES, FORM_DEFAULTS, formInput, refusalOf, type MigrationFormInput } from './migrationForm.ts';
import { showMigration } from './migrationPage.ts';

function showForm(ctx: WebContext, req: Request, res: Response, input: MigrationFormInput, errors: Record<string, string> = {}) {
  render(ctx, req, res, 'migrations/new.njk', { input, errors, choices: FORM_CHOICES });
}

/** Says which of the sent fields the migration's state kept from changing. */
function ignoredText(ignored: readonly string[], status: string): string {
  const names = ignored.map((field) => field.replace('_', ' '));
  return `Only the contract and who is notified change once a migration has run; ${names.join(', ')} ${names.length === 1 ? 'was' : 'were'} ignored (it is ${status}).`;
}

export function migrationFormRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/migrations/new', (req: Request, res: Response) => {
    const error = queryString(req, 'error');
    showForm(ctx, req, res, FORM_DEFAULTS, error ? { _form: error } : {});
  });

  route(router, 'POST', '/migrations/new', async (req: Request, res: Response) => {
    const { input } = formInput(req.body as Record<string, unknown>);
    const body = createBody(input);
    try {
      const created = await ctx.controlPlane.createMigration(actorOf(res).user_id, body);
      flash(req, 'success', `Migration ${created.name} created as a draft: run it when you are ready.`);
      seeOther(res, `/migrations/${created.slug}`);
    } catch (error) {
      res.status(422);
      showForm(ctx, req, res, input, errorsByField(refusalOf(error), body, CREATE_FIELDS));
    }
  });

  route(router, 'POST', '/migrations/:slug/edit', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const fields = req.body as Record<string, unknown>;
    const { input, present } = formInput(fields, { ...FORM_DEFAULTS, flavor: '', purpose: '', origin: '', destination: '' });
    const body = editBody(input, present, fields['clear_contract'] === 'yes');
    try {
      const edited = await ctx.controlPlane.editMigration(actorOf(res).user_id, slug, body);
      flash(req, 'success', 'Settings saved.');
      if (edited.ignored.length > 0) flash(req, 'info', ignoredText(edited.ignored, edited.status));
      seeOther(res, `/migrations/${slug}`);
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal.status === 404) throw new HttpError(404, `There is no migration ${slug}. It may have been deleted.`);
      res.status(422);
      await showMigration(ctx, req, res, { edit: { values: input, errors: errorsByField(refusal, body, EDIT_FIELDS) } });
    }
  });
}
