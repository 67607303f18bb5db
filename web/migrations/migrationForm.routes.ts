import type { Request, Response, Router } from 'express';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { checkCsrfInHandler } from '../http/csrf.ts';
import { flash, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf, queryString } from '../instances/instanceRequest.ts';
import { CodeLineError, EDIT_FIELDS, editBody, errorsByField, FORM_DEFAULTS, formInput, refusalOf } from './migrationForm.ts';
import { createMigrationFromForm, showCreateForm } from './migrationFormCreate.ts';
import { showMigration } from './migrationPage.ts';

/** Says which of the sent fields the migration's state kept from changing. */
function ignoredText(ignored: readonly string[], status: string): string {
  const names = ignored.map((field) => field.replace('_', ' '));
  return `Only the contract and who is notified change once a migration has run; ${names.join(', ')} ${names.length === 1 ? 'was' : 'were'} ignored (it is ${status}).`;
}

export function migrationFormRoutes(router: Router, ctx: WebContext): void {
  // The multipart form carries its token as its first field, checked before any file is kept.
  checkCsrfInHandler('/migrations/new');

  route(router, 'GET', '/migrations/new', (req: Request, res: Response) => {
    const error = queryString(req, 'error');
    showCreateForm(ctx, req, res, FORM_DEFAULTS, error ? { _form: error } : {});
  });

  route(router, 'POST', '/migrations/new', (req: Request, res: Response) => createMigrationFromForm(ctx, req, res));

  route(router, 'POST', '/migrations/:slug/edit', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const fields = req.body as Record<string, unknown>;
    const { input, present } = formInput(fields, { ...FORM_DEFAULTS, flavor: '', purpose: '', origin: '', destination: '' });
    let body: ReturnType<typeof editBody>;
    try {
      body = editBody(input, present, fields['clear_contract'] === 'yes');
    } catch (error) {
      if (!(error instanceof CodeLineError)) throw error;
      res.status(422);
      return showMigration(ctx, req, res, { edit: { values: input, errors: { code: error.message } } });
    }
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
