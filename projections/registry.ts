import type { Projection } from './runner/projection.ts';
import { streamActivityProjection } from './streamActivity/streamActivity.ts';

/** Every read model the projector keeps. */
export const projections: readonly Projection[] = [streamActivityProjection];

/**
 * Event type → work-queue subject. Empty until a context asks for background work (instances,
 * migrations, padrón imports); the work relay reads nothing while it is.
 */
export const workRoutes: Readonly<Record<string, string>> = {};
