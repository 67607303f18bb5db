import { writeFile } from 'node:fs/promises';
import type { StepState } from '#shared/workflow/jobState.ts';
import { done } from '#shared/workflow/stepOutcome.ts';
import type { MigrationStep, MigrationStepContext } from '../migrationStepContext.ts';
import { artifactFile, storeArtifact } from './artifact.ts';

/** Longest facts line a step gets in the report. */
const MAX_FACTS = 300;

/**
 * Until the PDF report exists: a plain-text summary of the run (`<step id>.txt`, artifact kind
 * `report`): the migration, its route, the run, and each step's status, attempts, error or facts
 * (artifacts with their size and sha256, warnings), as the run's state has them when this step runs.
 */
export const report: MigrationStep = async (context) => {
  const file = await artifactFile(context, '.txt');
  await writeFile(file, reportText(context, new Date()), { mode: 0o600 });
  return done({ artifact: await storeArtifact(context, 'report', file) });
};

export function reportText({ migration, run, step: self }: Pick<MigrationStepContext, 'migration' | 'run' | 'step'>, at: Date): string {
  const how = run.kind === 'resume' ? ` (resumes run ${run.resumedFrom})` : run.kind === 'run-anyway' ? ' (run anyway, past a failed pre-flight)' : '';
  const lines = [
    'Forja migration report (plain text; the PDF report is still to come)',
    '',
    `Migration:        ${migration.name} (${migration.slug})`,
    `Route:            ${migration.origin} -> ${migration.destination}, ${migration.flavor}, engine ${migration.engine}, purpose ${migration.purpose}`,
    `Recipe:           ${migration.recipe.key} (sha256 ${migration.recipe.sha256})`,
    `Working database: ${migration.workingDatabase}`,
    `Run:              ${run.number}${how}`,
    `Written:          ${at.toISOString()}`,
    '',
    'Steps:',
  ];
  const width = Math.max(...run.job.plan.map((step) => step.id.length));
  for (const step of run.job.plan) {
    const state = step.id === self.id ? undefined : run.job.steps[step.id];
    lines.push(`  ${step.id.padEnd(width)}  ${step.type.padEnd(17)}  ${step.id === self.id ? 'running (this report)' : describe(state)}`);
  }
  return `${lines.join('\n')}\n`;
}

function describe(state: StepState | undefined): string {
  if (!state) return 'unknown';
  const attempts = state.attempts > 1 ? `, ${state.attempts} attempts` : '';
  switch (state.status) {
    case 'completed':
    case 'reused':
      return `${state.status}${attempts}${factsText(state.facts)}`;
    case 'failed':
      return `failed${attempts}${state.retryable ? ' (retryable)' : ''}: ${state.error}`;
    case 'waiting':
      return `waiting at the gate: ${state.gate}`;
    case 'pending':
      return `pending${state.interrupted ? ` (interrupted: ${state.interrupted})` : ''}`;
    case 'running':
    case 'skipped':
      return `${state.status}${attempts}`;
    default: {
      const unknown: never = state;
      return String(unknown);
    }
  }
}

/** An artifact as name, size and hash; other facts as compact JSON (cut short); warnings in full. */
function factsText(facts: object): string {
  const { artifact, warnings, ...rest } = facts as { artifact?: { name: string; bytes: number; sha256: string }; warnings?: string[] };
  const json = JSON.stringify(rest);
  const parts = [
    ...(artifact ? [`artifact ${artifact.name}, ${artifact.bytes} bytes, sha256 ${artifact.sha256}`] : []),
    ...(Object.keys(rest).length > 0 ? [json.length > MAX_FACTS ? `${json.slice(0, MAX_FACTS)}…` : json] : []),
    ...(warnings ?? []).map((warning) => `WARNING ${warning}`),
  ];
  return parts.length > 0 ? `: ${parts.join('; ')}` : '';
}
