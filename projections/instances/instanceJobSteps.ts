import type { Selectable } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { legacyPlan, type InstanceEvent } from '#services/instances/domain/instance.ts';
import type { ReadModel, ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';
import type { InstanceJobStepsTable } from './instanceJobSteps.table.ts';

export type InstanceJobStepRow = Selectable<InstanceJobStepsTable>;

/** The steps of every job, pending ones included, with timings: the detail page shows the current job's. */
export const instanceJobStepsProjection: Projection<ReadModelDatabase> = {
  name: 'instance_job_steps',
  eventTypes: ['InstanceRequested', 'InstanceActionRequested', 'InstanceStepStarted', 'InstanceStepCompleted', 'InstanceStepFailed', 'InstanceStepInterrupted', 'InstancePurged'],
  tables: ['instance_job_steps'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data } as InstanceEvent;
      const at = new Date(recorded.metadata.at);
      switch (event.type) {
        case 'InstanceRequested':
        case 'InstanceActionRequested': {
          // The plan is in the event; the first events had none, and their plan followed the rules of their time.
          const plan = event.data.plan ?? (await legacyPlanOf(trx, event));
          const rows = plan.map((step, position) => ({
            job_id: event.data.jobId,
            position,
            slug: event.data.slug,
            step: step.id,
            state: 'pending',
            attempts: 0,
            started_at: null,
            ended_at: null,
            duration_ms: null,
            error: null,
            log_tail: null,
          }));
          await trx.insertInto('instance_job_steps').values(rows).onConflict((oc) => oc.columns(['job_id', 'position']).doNothing()).execute();
          break;
        }
        case 'InstanceStepStarted':
          // A retry starts afresh: the failed attempt's duration would read as this one's, and its log tail is no longer the step's.
          await trx
            .updateTable('instance_job_steps')
            .set({ state: 'running', attempts: event.data.attempt, started_at: at, ended_at: null, duration_ms: null, error: null, log_tail: null })
            .where('job_id', '=', event.data.jobId)
            .where('step', '=', event.data.step)
            .execute();
          break;
        case 'InstanceStepInterrupted': {
          const { reason } = event.data;
          const timedOut = reason === 'timeout';
          await trx
            .updateTable('instance_job_steps')
            .set({
              state: timedOut ? 'failed' : reason === 'cancel' ? 'cancelled' : 'pending',
              ended_at: at,
              duration_ms: event.data.durationMs ?? null,
              error: timedOut ? 'timed out' : reason === 'cancel' ? 'cancelled: the job was stopped while this step ran' : null,
            })
            .where('job_id', '=', event.data.jobId)
            .where('step', '=', event.data.step)
            .execute();
          break;
        }
        case 'InstanceStepCompleted':
        case 'InstanceStepFailed': {
          const failed = event.type === 'InstanceStepFailed';
          await trx
            .updateTable('instance_job_steps')
            .set({
              state: failed ? 'failed' : (event.data.as ?? 'completed'),
              ended_at: at,
              duration_ms: event.data.durationMs,
              error: failed ? event.data.error : null,
              log_tail: failed ? JSON.stringify(event.data.logTail) : null,
            })
            .where('job_id', '=', event.data.jobId)
            .where('step', '=', event.data.step)
            .execute();
          break;
        }
        case 'InstancePurged':
          await trx.deleteFrom('instance_job_steps').where('slug', '=', event.data.slug).execute();
          break;
        case 'InstanceJobSucceeded':
        case 'InstanceJobFailed':
        case 'InstanceJobCancelled':
        case 'InstanceProcessExited':
        case 'InstanceRebuildDeferred':
        case 'InstanceVisited':
        case 'InstanceShellOpened':
        case 'InstanceShellClosed':
          break;
        default: {
          const unknown: never = event;
          return unknown;
        }
      }
    }
  },
};

/** The plan of a request from before plans were recorded: a rebuild of a never-provisioned instance provisioned it. */
async function legacyPlanOf(trx: ReadModelTransaction, event: Extract<InstanceEvent, { type: 'InstanceRequested' | 'InstanceActionRequested' }>) {
  if (event.type === 'InstanceRequested') return legacyPlan('provision', false);
  const provisioned = event.data.action === 'rebuild' && (await wasProvisioned(trx, event.data.slug));
  return legacyPlan(event.data.action, provisioned);
}

async function wasProvisioned(trx: ReadModelTransaction, slug: string): Promise<boolean> {
  const row = await trx.selectFrom('instance_job_steps').select('job_id').where('slug', '=', slug).where('step', '=', 'database').where('state', '=', 'completed').executeTakeFirst();
  return row !== undefined;
}

/** The steps of one job, in order. */
export function jobStepsOf(db: ReadModel, jobId: string): Promise<InstanceJobStepRow[]> {
  return db.selectFrom('instance_job_steps').selectAll().where('job_id', '=', jobId).orderBy('position').execute();
}
