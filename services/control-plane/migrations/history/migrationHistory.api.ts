import type { Request, Response, Router } from 'express';
import { actingUser, type ControlPlaneContext } from '../../context.ts';
import { route } from '../../http/route.ts';
import { validateSlug } from '../../http/validate.ts';
import { historyFilters, historyPosition } from './historyFilters.ts';
import { loadMigrationHistory } from './historyEvents.ts';
import { historyJsonl, historyOut, stateAsOfOut } from './historyOut.ts';

/**
 * A migration's history for auditors, from its event stream (not the read models): the events
 * with filters, the state as of one event, and the hash-chained JSON-lines export that
 * `npm run audit -- verify` checks. The same three under `/api/v1` (Basic) and `/internal` (web,
 * acting for the signed-in user).
 */
export function migrationHistoryApi(router: Router, ctx: ControlPlaneContext): void {
  const load = (req: Request, res: Response) => loadMigrationHistory(ctx.store, String(req.params['slug']), actingUser(res.locals));

  for (const base of ['/api/v1/migrations', '/internal/migrations']) {
    route(router, ctx, 'GET', `${base}/:slug/history`, validateSlug, async (req: Request, res: Response) => {
      const filters = historyFilters(req);
      res.json(await historyOut(ctx.readModel, await load(req, res), filters));
    });

    route(router, ctx, 'GET', `${base}/:slug/history.jsonl`, validateSlug, async (req: Request, res: Response) => {
      const history = await load(req, res);
      res.setHeader('content-type', 'application/x-ndjson; charset=utf-8');
      res.setHeader('content-disposition', `attachment; filename="${history.slug}-history.jsonl"`);
      res.setHeader('x-chain-head', history.lines.at(-1)!.hash);
      res.send(historyJsonl(history));
    });

    route(router, ctx, 'GET', `${base}/:slug/history/:position`, validateSlug, async (req: Request, res: Response) => {
      const history = await load(req, res);
      res.json(await stateAsOfOut(ctx.readModel, history, historyPosition(req, history.lines.length)));
    });
  }
}
