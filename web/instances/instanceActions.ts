import type { InstanceDetailRow } from '#projections/instances/instanceDetail.ts';
import { ACTIONS, type InstanceAction } from '#services/instances/domain/instance.ts';
import { allowedActions } from '#services/instances/domain/instanceActions.ts';

/**
 * The actions the detail page offers: exactly the domain's allowed ones (the control-plane refuses
 * the others with 409), so a button is never shown that can only fail.
 */
export function offeredActions(row: InstanceDetailRow): InstanceAction[] {
  return allowedActions({ slug: row.slug, status: row.status, stage: row.stage, jobActive: row.job_active, jobKind: row.job_kind, provisioned: row.provisioned });
}

export const isAction = (value: string): value is InstanceAction => (ACTIONS as readonly string[]).includes(value);

/** What the flash says once the control-plane accepted an action. */
export const ACTION_DONE: Record<InstanceAction, string> = {
  start: 'Starting',
  stop: 'Stopping',
  restart: 'Restarting',
  rebuild: 'Rebuilding',
  destroy: 'Destroying',
};
