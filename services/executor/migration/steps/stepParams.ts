import type { PlannedStep } from '#shared/workflow/plan.ts';

/** The plan is data from a recipe the linter checked; a param of the wrong shape is a bug to name, not to guess around. */
const refuse = (step: PlannedStep, name: string, wanted: string): never => {
  throw new Error(`step ${step.id} (${step.type}): param ${name} is not ${wanted}: ${JSON.stringify(step.params[name])}`);
};

export function stringParam(step: PlannedStep, name: string): string {
  const value = step.params[name];
  return typeof value === 'string' && value.trim() !== '' ? value : refuse(step, name, 'a non-empty string');
}

export function numberParam(step: PlannedStep, name: string, fallback?: number): number {
  const value = step.params[name] ?? fallback;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : refuse(step, name, 'a number from 0');
}

export function stringListParam(step: PlannedStep, name: string): string[] {
  const value = step.params[name] ?? [];
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : refuse(step, name, 'a list of strings');
}

/** The destination of the step's hop (a chained route has one per hop), else the migration's. */
export function hopDestination(step: PlannedStep, migrationDestination: string): string {
  const hop = step.params['hop'] as { destination?: unknown } | undefined;
  return typeof hop?.destination === 'string' ? hop.destination : migrationDestination;
}

/** The version the step's hop starts from (the migration's origin for a one-hop plan). */
export function hopOrigin(step: PlannedStep, migrationOrigin: string): string {
  const hop = step.params['hop'] as { origin?: unknown } | undefined;
  return typeof hop?.origin === 'string' ? hop.origin : migrationOrigin;
}

/** `1.2 GB (1234567890 bytes)`: the figure an operator compares, and the exact one. */
export function bytesText(bytes: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]} (${bytes} bytes)`;
}
