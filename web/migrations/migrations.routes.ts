import type { Request, Response, Router } from 'express';
import { listMigrations } from '#projections/erpMigrations/migrationDetail.ts';
import { MIGRATION_STATUSES } from '#services/migrations/domain/migration.ts';
import { roleAtLeast } from '#shared/auth/roles.ts';
import type { WebContext } from '../context.ts';
import { render } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf, pageNumber, queryString } from '../instances/instanceRequest.ts';
import { migrationActionRoutes } from './migrationActions.routes.ts';
import { migrationFormRoutes } from './migrationForm.routes.ts';
import { migrationHistoryRoutes } from './migrationHistory.routes.ts';
import { showMigration, showRun } from './migrationPage.ts';
import { migrationLogRoutes } from './migrationLogs.routes.ts';
import { migrationReportRoutes } from './migrationReport.routes.ts';
import { migrationResyncRoutes } from './migrationResync.routes.ts';
import { STATUS_TONE } from './migrationView.ts';

const PAGE_SIZE = 20;

/** The list page (or its table for htmx): search by name, a status, one page. */
async function showList(ctx: WebContext, req: Request, res: Response) {
  const status = queryString(req, 'status');
  const filters = { search: queryString(req, 'search').slice(0, 100), status: (MIGRATION_STATUSES as readonly string[]).includes(status) ? status : '' };
  const page = pageNumber(queryString(req, 'page'));
  const { rows, total } = await listMigrations(ctx.readModel, { ...filters, page, pageSize: PAGE_SIZE });
  const filterQuery = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== '')).toString();
  render(
    ctx,
    req,
    res,
    'migrations/list.njk',
    {
      filters,
      filtered: filterQuery !== '',
      migrations: { rows, total, page, pageCount: Math.ceil(total / PAGE_SIZE) },
      baseQuery: filterQuery ? `${filterQuery}&` : '',
      statuses: MIGRATION_STATUSES,
      tones: STATUS_TONE,
      canCreate: roleAtLeast(actorOf(res).role, 'developer'),
    },
    'migrations/_table.njk',
  );
}

/** The migration pages: reads from the read models, commands through the control-plane. */
export function migrationRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/migrations', (req: Request, res: Response) => showList(ctx, req, res));
  // The fixed path first: `new` is not a slug.
  migrationFormRoutes(router, ctx);
  route(router, 'GET', '/migrations/:slug', (req: Request, res: Response) => showMigration(ctx, req, res));
  route(router, 'GET', '/migrations/:slug/runs/:number', (req: Request, res: Response) => showRun(ctx, req, res));
  migrationHistoryRoutes(router, ctx);
  migrationActionRoutes(router, ctx);
  migrationLogRoutes(router, ctx);
  migrationReportRoutes(router, ctx);
  migrationResyncRoutes(router, ctx);
}
