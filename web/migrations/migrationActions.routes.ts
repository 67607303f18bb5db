import type { Request, Response, Router } from 'express';
import { getMigration, migrationActionViewOf } from '#projections/erpMigrations/migrationDetail.ts';
import { allowedMigrationActions } from '#services/migrations/domain/migrationActions.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import type { CommandRefused } from '../controlPlaneClient.ts';
import { flash, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf } from '../instances/instanceRequest.ts';
import { errorsByField, refusalOf, refusalText } from './migrationForm.ts';
import { runNumberOf, showMigration, type PageForm } from './migrationPage.ts';

const field = (req: Request, name: string): string => {
  const value = (req.body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value.slice(0, 4000) : '';
};

const noSuchMigration = (slug: string) => new HttpError(404, `There is no migration ${slug}. It may have been deleted.`);

/** Whether the migration's page shows the form `name` now (only then can it show an error next to its field). */
async function formShown(ctx: WebContext, slug: string, name: 'runAnyway' | 'gate' | 'stop'): Promise<boolean> {
  const migration = await getMigration(ctx.readModel, slug);
  if (!migration) throw noSuchMigration(slug);
  if (name === 'gate') return migration.status === 'waiting';
  const allowed = allowedMigrationActions(migrationActionViewOf(migration));
  return allowed.includes(name === 'stop' ? 'stop' : 'run-anyway');
}

/**
 * Runs a command of the migration page: done, a flash and 303 back to the page; refused for its
 * state (409), the reason as a flash and 303 back; refused for what the form sent (422), the page
 * again with the form's input and the reason next to its field (`form` names the form), or as a
 * flash when the page does not show that form now.
 */
async function act(ctx: WebContext, req: Request, res: Response, command: () => Promise<string>, form?: { name: 'runAnyway' | 'gate'; fields: string[]; values: Record<string, string> }): Promise<void> {
  const slug = String(req.params['slug']);
  let refusal: CommandRefused;
  try {
    flash(req, 'success', await command());
    return seeOther(res, `/migrations/${slug}`);
  } catch (error) {
    refusal = refusalOf(error);
  }
  if (refusal.status === 404) throw noSuchMigration(slug);
  if (refusal.status === 409 || !form || !(await formShown(ctx, slug, form.name))) {
    flash(req, 'error', refusalText(refusal));
    return seeOther(res, `/migrations/${slug}`);
  }
  res.status(422);
  const forms: Record<string, PageForm> = { [form.name]: { values: form.values, errors: errorsByField(refusal, {}, form.fields) } };
  await showMigration(ctx, req, res, forms);
}

export function migrationActionRoutes(router: Router, ctx: WebContext): void {
  const actor = (res: Response) => actorOf(res).user_id;
  const slugOf = (req: Request) => String(req.params['slug']);

  route(router, 'POST', '/migrations/:slug/run', (req: Request, res: Response) =>
    act(ctx, req, res, async () => {
      const { number } = await ctx.controlPlane.runMigration(actor(res), slugOf(req));
      return `Run ${number} is queued: it starts when an executor takes it.`;
    }),
  );

  route(router, 'POST', '/migrations/:slug/run-anyway', (req: Request, res: Response) => {
    const reason = field(req, 'reason');
    return act(
      ctx,
      req,
      res,
      async () => {
        const { number } = await ctx.controlPlane.runMigrationAnyway(actor(res), slugOf(req), reason);
        return `Run ${number} is queued without the pre-flight checks; your reason is recorded.`;
      },
      { name: 'runAnyway', fields: ['reason'], values: { reason } },
    );
  });

  const DONE = { pause: 'Paused: the running step is stopped; resume goes on from the last checkpoint.', resume: 'Resumed: the run is queued again.', stop: 'Stopped: back to draft; its runs are dropped.' };
  for (const action of ['pause', 'resume'] as const) {
    route(router, 'POST', `/migrations/:slug/${action}`, (req: Request, res: Response) =>
      act(ctx, req, res, async () => {
        await ctx.controlPlane.migrationAction(actor(res), slugOf(req), action);
        return DONE[action];
      }),
    );
  }

  // Stopping drops every run, the working database and instances: the form's box must be ticked, with or without JavaScript.
  route(router, 'POST', '/migrations/:slug/stop', async (req: Request, res: Response) => {
    if (field(req, 'confirm') !== 'stop') {
      const unticked = 'Tick the box to confirm: stopping drops every run of this migration.';
      if (!(await formShown(ctx, slugOf(req), 'stop'))) {
        flash(req, 'error', unticked);
        return seeOther(res, `/migrations/${slugOf(req)}`);
      }
      res.status(422);
      return showMigration(ctx, req, res, { stop: { errors: { confirm: unticked } } });
    }
    return act(ctx, req, res, async () => {
      await ctx.controlPlane.migrationAction(actor(res), slugOf(req), 'stop');
      return DONE.stop;
    });
  });

  route(router, 'POST', '/migrations/:slug/runs/:number/resume', async (req: Request, res: Response) => {
    const number = runNumberOf(req);
    const decision = field(req, 'decision');
    const note = field(req, 'note').trim();
    const values = { decision, note };
    return act(
      ctx,
      req,
      res,
      async () => {
        // The control-plane checks the decision (approve or reject).
        await ctx.controlPlane.resolveMigrationGate(actor(res), slugOf(req), number, decision as 'approve' | 'reject', note);
        return decision === 'approve' ? `Approved: run ${number} goes on.` : `Rejected: run ${number} fails at this step.`;
      },
      { name: 'gate', fields: ['decision', 'note'], values },
    );
  });

  route(router, 'POST', '/migrations/:slug/delete', async (req: Request, res: Response) => {
    const confirmName = field(req, 'confirm_name');
    const slug = slugOf(req);
    try {
      await ctx.controlPlane.deleteMigration(actor(res), slug, confirmName);
      flash(req, 'success', `Migration ${slug} deleted with its runs and artifacts.`);
      seeOther(res, '/migrations');
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal.status === 404) throw noSuchMigration(slug);
      res.status(422);
      await showMigration(ctx, req, res, { delete: { values: { confirm_name: confirmName }, errors: { confirm_name: refusal.messageFor('confirm_name') ?? refusal.message } } });
    }
  });
}
