import type { Request, Response, Router } from 'express';
import { RequestValidationError } from '#shared/http/errors.ts';
import type { ReportArtifact } from '#services/migrations/domain/migration.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateSlug } from '../http/validate.ts';
import { commandMetadata } from '../projects/project.api.ts';
import { generateRunReport } from './migrationReport.ts';
import { MIGRATION_READ_MODELS } from './migrationOut.ts';

/** `{number}`: a positive integer, else 422 naming it. */
function runNumber(req: Request): number {
  const raw = String(req.params['number']);
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new RequestValidationError([{ loc: ['path', 'number'], msg: 'the run number is a positive integer', type: 'type_error.integer' }]);
  return Number(raw);
}

/** ArtifactOut (schemas/api/ArtifactOut.v1.json). */
const artifactOut = (slug: string, number: number, artifact: ReportArtifact, at: string) => ({
  id: artifact.id,
  run: number,
  kind: artifact.kind,
  name: artifact.name,
  bytes: artifact.bytes,
  sha256: artifact.sha256,
  created_at: at,
  download: `/api/v1/migrations/${slug}/artifacts/${artifact.id}`,
});

/**
 * `POST …/runs/{number}/report`, for API clients and (under /internal) for web: the run's PDF report,
 * generated now and registered as its artifact; 201 with the artifact once the read model lists it.
 */
export function migrationReportApi(router: Router, ctx: ControlPlaneContext): void {
  for (const base of ['/api/v1', '/internal'] as const) {
    route(router, ctx, 'POST', `${base}/migrations/:slug/runs/:number/report`, validateSlug, async (req: Request, res: Response) => {
      const slug = String(req.params['slug']);
      const number = runNumber(req);
      const metadata = commandMetadata(req, actingUser(res.locals));
      const { artifact, lastGlobalPosition } = await generateRunReport(ctx, slug, number, metadata);
      await ctx.waitForProjections(lastGlobalPosition, MIGRATION_READ_MODELS);
      const out = artifactOut(slug, number, artifact, metadata.at);
      res.status(201).location(out.download).json(out);
    });
  }
}
