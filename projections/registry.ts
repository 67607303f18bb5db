import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { ControlRoutes } from './reactors/controlRelay.ts';
import type { Projection } from './runner/projection.ts';
import { padronLoadsProjection } from './padronLoads/padronLoads.ts';
import { streamActivityProjection } from './streamActivity/streamActivity.ts';
import { projectDetailProjection } from './projects/projectDetail.ts';
import { projectListProjection } from './projects/projectList.ts';
import { usersProjection } from './users/users.ts';
import { instanceDetailProjection } from './instances/instanceDetail.ts';
import { instanceJobStepsProjection } from './instances/instanceJobSteps.ts';
import { instanceListProjection } from './instances/instanceList.ts';
import { erpMigrationsProjection } from './erpMigrations/erpMigrations.ts';
import { recipesProjection } from './recipes/recipes.ts';
import { sshKeysProjection } from './sshKeys/sshKeys.ts';

/** Every read model the projector keeps. */
export const projections: readonly Projection[] = [
  streamActivityProjection,
  usersProjection,
  projectListProjection,
  projectDetailProjection,
  padronLoadsProjection,
  instanceListProjection,
  instanceDetailProjection,
  instanceJobStepsProjection,
  erpMigrationsProjection,
  recipesProjection,
  sshKeysProjection,
];

/** Event type → work-queue subject: the events that ask an executor for work. */
export const workRoutes: Readonly<Record<string, string>> = {
  InstanceRequested: 'work.instance',
  InstanceActionRequested: 'work.instance',
  /** The executor deletes what is left of the instance's files. */
  InstancePurged: 'work.instance',
  MigrationRunRequested: 'work.migration',
  /** A paused run, or one a gate held, goes on. */
  MigrationJobResumed: 'work.migration',
  MigrationGateResolved: 'work.migration',
  /** The executor removes the working database, its checkpoint and the migration's files. */
  MigrationStopped: 'work.migration',
  MigrationDeleted: 'work.migration',
};

/** Event type → the control subject that stops the job it concerns (the executor kills the running step). */
export const controlRoutes: ControlRoutes = {
  InstanceJobCancelled: (event: RecordedEvent) => `control.instance.${(event.data as { slug: string }).slug}`,
  MigrationJobPaused: (event: RecordedEvent) => `control.migration.${(event.data as { slug: string }).slug}`,
  MigrationJobCancelled: (event: RecordedEvent) => `control.migration.${(event.data as { slug: string }).slug}`,
};
