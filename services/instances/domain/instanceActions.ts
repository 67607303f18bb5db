import type { InstanceAction, InstanceStatus, JobKind, Stage } from './instance.ts';

/**
 * Which actions an instance accepts, and why not otherwise: the one home of these rules. The
 * decider refuses with the reason, the web offers exactly the allowed ones, the API documents them.
 */

/** What the rules look at: the folded state has it, and so does the instance_detail read model. */
export interface ActionView {
  slug: string;
  status: InstanceStatus;
  stage: Stage | string;
  /** The current job has not ended yet. */
  jobActive: boolean;
  jobKind: JobKind | string;
  /** A database exists for it: `start` and `restart` have something to run. */
  provisioned: boolean;
}

/** The statuses each action is allowed from (then `refuseAction`'s other rules apply). */
const FROM: Record<InstanceAction | 'sleep', readonly InstanceStatus[]> = {
  start: ['stopped', 'sleeping'],
  stop: ['running'],
  restart: ['running', 'failed'],
  rebuild: ['running', 'stopped', 'sleeping', 'failed'],
  destroy: ['queued', 'provisioning', 'running', 'stopped', 'failed', 'sleeping'],
  sleep: ['running'],
};

/** The order buttons and documentation list them: the everyday ones first, destroy last. */
export const ACTION_ORDER: readonly InstanceAction[] = ['start', 'stop', 'restart', 'rebuild', 'destroy'];

/** Why `action` is refused for this instance, or null when it is allowed. */
export function refuseAction(action: InstanceAction | 'sleep', instance: ActionView): string | null {
  if (instance.status === 'destroyed') return `${instance.slug} is destroyed; create a new instance instead`;
  if (instance.jobActive && action !== 'destroy') return `${instance.slug} is busy with a ${instance.jobKind} job; wait for it to end (or destroy the instance)`;
  if (!FROM[action].includes(instance.status)) return `cannot ${action} ${instance.slug} while it is ${instance.status}`;
  if ((action === 'start' || action === 'restart') && !instance.provisioned) return `${instance.slug} was never provisioned; rebuild it instead`;
  if (action === 'sleep' && instance.stage !== 'development') return `only development instances sleep`;
  return null;
}

/** The user actions this instance accepts now, in button order. */
export function allowedActions(instance: ActionView): InstanceAction[] {
  return ACTION_ORDER.filter((action) => refuseAction(action, instance) === null);
}
