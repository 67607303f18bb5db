import type { Request, Response, Router } from 'express';
import { formatBytes } from '#shared/formatBytes.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { flash, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf } from '../instances/instanceRequest.ts';
import { refusalOf, refusalText } from './migrationForm.ts';
import { runNumberOf } from './migrationPage.ts';

/**
 * The run page's "Generate PDF report": the control-plane makes it now and registers it as an
 * artifact; back to the run page (303) with a flash that links the download. A refusal is a flash
 * too; an unknown migration or run is the 404 page.
 */
export function migrationReportRoutes(router: Router, ctx: WebContext): void {
  route(router, 'POST', '/migrations/:slug/runs/:number/report', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const number = runNumberOf(req);
    const runPage = `/migrations/${slug}/runs/${number}`;
    try {
      const artifact = await ctx.controlPlane.generateMigrationReport(actorOf(res).user_id, slug, number);
      flash(req, 'success', `Report ${artifact.name} is ready (${formatBytes(artifact.bytes)}, sha256 ${artifact.sha256.slice(0, 12)}…).`, {
        href: `/migrations/${slug}/artifacts/${artifact.id}/download`,
        text: 'Download the PDF',
        download: true,
      });
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal.status === 404) throw new HttpError(404, `Migration ${slug} has no run ${number}. Stopping a migration drops its runs.`);
      flash(req, 'error', refusalText(refusal));
    }
    seeOther(res, runPage);
  });
}
