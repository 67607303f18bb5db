import type { Request, Response, Router } from 'express';
import { HttpError } from '#shared/http/errors.ts';
import { CommandRefused } from '../controlPlaneClient.ts';
import type { WebContext } from '../context.ts';
import { render } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf, queryString } from '../instances/instanceRequest.ts';
import type { MigrationHistoryOut } from './migrationHistoryOut.ts';
import { historyRowView, migrationTone, runTone, stepTone } from './migrationHistoryView.ts';

const FILTERS = ['run', 'actor', 'type'] as const;

/** The control-plane's 404 as web's: a deleted migration's history is there for admins only. */
function notFound(slug: string) {
  return (error: unknown): never => {
    if (error instanceof CommandRefused && error.status === 404) throw new HttpError(404, `There is no migration ${slug}, or only admins may see its history (it was deleted).`);
    throw error;
  };
}

/**
 * The history's rows and filters. A filter the control-plane refuses (a hand-edited URL) shows
 * the whole history with the reason, instead of an error page.
 */
async function historyOf(ctx: WebContext, req: Request, res: Response, slug: string): Promise<{ history: MigrationHistoryOut; filterError: string | null }> {
  const actor = actorOf(res).user_id;
  const filters = Object.fromEntries(FILTERS.map((name) => [name, queryString(req, name)]).filter(([, value]) => value !== ''));
  try {
    return { history: await ctx.controlPlane.migrationHistory(actor, slug, filters), filterError: null };
  } catch (error) {
    if (!(error instanceof CommandRefused) || error.status !== 422) return notFound(slug)(error);
    return { history: await ctx.controlPlane.migrationHistory(actor, slug, {}).catch(notFound(slug)), filterError: error.message };
  }
}

/** `:position` of the path: an event's version in the stream, else no page. */
function positionOf(req: Request): number {
  const raw = String(req.params['position']);
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new HttpError(404, `There is no event ${raw.slice(0, 20)} in this history.`);
  return Number(raw);
}

/**
 * The auditor's pages of a migration (issue 13): its events from the event store through the
 * control-plane (web never reads events), the state as of each, and the hash-chained export.
 */
export function migrationHistoryRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/migrations/:slug/history', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const { history, filterError } = await historyOf(ctx, req, res, slug);
    const filters = Object.fromEntries(FILTERS.map((name) => [name, history.filters[name] === null ? '' : String(history.filters[name])]));
    render(
      ctx,
      req,
      res,
      'migrations/history.njk',
      { history, rows: history.events.map(historyRowView), filters, filtered: Object.values(filters).some(Boolean), filterError },
      'migrations/_historyTable.njk',
    );
  });

  route(router, 'GET', '/migrations/:slug/history.jsonl', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const answer = await ctx.controlPlane.migrationHistoryExport(actorOf(res).user_id, slug).catch(notFound(slug));
    res.attachment(`${slug}-history.jsonl`).type('application/x-ndjson; charset=utf-8');
    res.set('X-Chain-Head', answer.headers.get('x-chain-head') ?? '');
    res.send(Buffer.from(await answer.arrayBuffer()));
  });

  route(router, 'GET', '/migrations/:slug/history/:position', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const position = positionOf(req);
    const asOf = await ctx.controlPlane.migrationStateAsOf(actorOf(res).user_id, slug, position).catch((error: unknown) => {
      if (error instanceof CommandRefused && error.status === 404 && /no event/.test(error.message)) throw new HttpError(404, `The history of ${slug} has no event ${position}.`);
      return notFound(slug)(error);
    });
    render(ctx, req, res, 'migrations/historyState.njk', { asOf, event: historyRowView(asOf.event), state: asOf.state, migrationTone, runTone, stepTone });
  });
}
