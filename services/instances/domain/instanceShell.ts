import type { LiveInstance } from './instance.ts';

/**
 * Why a web shell may not open on the instance now, or null when it may. A shell works in the
 * instance's files (process runtime) or its container (docker): a destroyed instance has neither,
 * and one whose first provisioning has not finished has nothing worth a shell yet. Whether the
 * container is up is web's to check, just before it opens one; the decider cannot see it.
 */
export function refuseShell(instance: Pick<LiveInstance, 'slug' | 'status' | 'provisioned'>): string | null {
  if (instance.status === 'destroyed') return `${instance.slug} is destroyed: there is nothing left to open a shell in`;
  if (!instance.provisioned && (instance.status === 'queued' || instance.status === 'provisioning')) {
    return `${instance.slug} is still being provisioned: a shell opens once its first provisioning has finished`;
  }
  return null;
}
