import type { Projection } from './runner/projection.ts';
import { padronLoadsProjection } from './padronLoads/padronLoads.ts';
import { streamActivityProjection } from './streamActivity/streamActivity.ts';
import { projectDetailProjection } from './projects/projectDetail.ts';
import { projectListProjection } from './projects/projectList.ts';
import { usersProjection } from './users/users.ts';

/** Every read model the projector keeps. */
export const projections: readonly Projection[] = [streamActivityProjection, usersProjection, projectListProjection, projectDetailProjection, padronLoadsProjection];

/**
 * Event type → work-queue subject. Empty until a context asks for background work (instances,
 * migrations, padrón imports); the work relay reads nothing while it is.
 */
export const workRoutes: Readonly<Record<string, string>> = {};
