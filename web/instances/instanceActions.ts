import { ACTIONS, type InstanceAction, type InstanceStatus } from '#services/instances/domain/instance.ts';

/** The order of the buttons: the everyday ones first, destroy last. */
const BUTTON_ORDER: readonly InstanceAction[] = ['start', 'stop', 'restart', 'rebuild', 'destroy'];

/**
 * Which actions the detail page offers for a status: the control-plane's rules (it refuses the
 * others with 409), so a button is never shown that can only fail. While a job runs only destroy
 * is accepted.
 */
const OFFERED: Record<InstanceAction, readonly InstanceStatus[]> = {
  start: ['stopped', 'sleeping'],
  stop: ['running'],
  restart: ['running', 'failed'],
  rebuild: ['running', 'stopped', 'sleeping', 'failed'],
  destroy: ['queued', 'provisioning', 'running', 'stopped', 'failed', 'sleeping'],
};

export function actionsFor(status: InstanceStatus, jobActive: boolean): InstanceAction[] {
  return BUTTON_ORDER.filter((action) => OFFERED[action].includes(status) && (!jobActive || action === 'destroy'));
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
