import type { Selectable } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { InstanceEvent } from '#services/instances/domain/instance.ts';
import type { InstanceOutColumns } from './instanceList.table.ts';

/** The InstanceOut columns as an event sets them (`modules` as the array; the projections write it as JSON). */
export type InstanceOutValues = Selectable<InstanceOutColumns>;

export const INSTANCE_EVENT_TYPES = [
  'InstanceRequested',
  'InstanceActionRequested',
  'InstanceStepStarted',
  'InstanceStepCompleted',
  'InstanceStepFailed',
  'InstanceStepInterrupted',
  'InstanceJobSucceeded',
  'InstanceJobFailed',
  'InstanceJobCancelled',
  'InstanceProcessExited',
  'InstancePurged',
  'InstanceRebuildDeferred',
  'InstanceVisited',
  'InstanceShellOpened',
] as const;

/** What an event changes in the InstanceOut columns: a whole row (requested), a patch, or deletion (purged). */
export type InstanceChange = { insert: InstanceOutValues } | { patch: Partial<Omit<InstanceOutValues, 'modules'>> } | { purge: true } | null;

export function instanceChange(recorded: RecordedEvent): InstanceChange {
  const event = { type: recorded.type, data: recorded.data } as InstanceEvent;
  const at = new Date(recorded.metadata.at);
  switch (event.type) {
    case 'InstanceRequested': {
      const d = event.data;
      return {
        insert: {
          slug: d.slug,
          name: d.name,
          project: d.project,
          stage: d.stage,
          erp_version: d.erpVersion,
          edition: d.edition,
          modules: d.modules,
          git_repo: d.gitRepo,
          branch: d.branch,
          status: 'queued',
          url: null,
          last_error: null,
          created_at: at,
          updated_at: at,
        },
      };
    }
    case 'InstanceActionRequested':
      return { patch: event.data.action === 'rebuild' ? { status: 'queued', updated_at: at } : { updated_at: at } };
    case 'InstanceStepStarted':
      return { patch: { updated_at: at } };
    case 'InstanceStepCompleted':
      return { patch: event.data.facts.url ? { url: event.data.facts.url, updated_at: at } : { updated_at: at } };
    case 'InstanceStepFailed':
      // The first events had no InstanceJobFailed: their failed step failed the instance.
      if (event.data.retryable !== undefined) return { patch: { updated_at: at } };
      return { patch: { status: 'failed', last_error: `${event.data.step}: ${event.data.error}`, updated_at: at } };
    case 'InstanceJobFailed':
      return { patch: { status: 'failed', last_error: `${event.data.step}: ${event.data.error}`, updated_at: at } };
    case 'InstanceStepInterrupted':
    case 'InstanceJobCancelled':
      return { patch: { updated_at: at } };
    case 'InstanceJobSucceeded':
      return { patch: { status: event.data.status, last_error: null, updated_at: at, ...(event.data.status === 'running' ? {} : { url: null }) } };
    case 'InstanceProcessExited':
      return { patch: { status: 'failed', last_error: `the ERP process exited${event.data.exitCode === null ? '' : ` with code ${event.data.exitCode}`}`, updated_at: at } };
    case 'InstancePurged':
      return { purge: true };
    case 'InstanceRebuildDeferred':
      return { patch: { updated_at: at } };
    // Activity for the idle sweep only (instance_detail's last_action_at): not a change of the instance.
    case 'InstanceVisited':
    case 'InstanceShellOpened':
    case 'InstanceShellClosed':
      return null;
    default:
      return null;
  }
}
