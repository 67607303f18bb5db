import { DomainError } from '#shared/decider/decider.ts';
import type { LiveMigration, MigrationEvent, ReportArtifact, Run } from './migration.ts';

/** Artifact ids give each run a block of 1000: `number × 1000 + n`. */
export const ARTIFACTS_PER_RUN = 1000;

/**
 * The id of the next on-demand report of `run`. A step's artifact is `number × 1000 + its position
 * in the plan`, counting up from 0; reports count down from `number × 1000 + 999`. The two meet
 * only when plan steps + reports exceed 1000, which `registerReport` refuses, so an id never names
 * two artifacts and `Math.floor(id / 1000)` is still the run.
 */
export const reportArtifactId = (run: Run): number => run.number * ARTIFACTS_PER_RUN + ARTIFACTS_PER_RUN - 1 - (run.reports?.length ?? 0);

/** The report file the control-plane stored, before the decider gives it its id. */
export type ReportFile = Omit<ReportArtifact, 'id' | 'kind'>;

/** Registers a stored report as an artifact of run `number`: any run that exists, live or ended. */
export function registerReport(migration: LiveMigration, number: number, file: ReportFile, by: string): MigrationEvent[] {
  const run = migration.runs.find((candidate) => candidate.number === number);
  if (!run) throw new DomainError(`${migration.slug} has no run ${number}`, 'not_found');
  if (run.job.plan.length + (run.reports?.length ?? 0) >= ARTIFACTS_PER_RUN) {
    throw new DomainError(`run ${number} of ${migration.slug} already has ${run.reports?.length ?? 0} reports: download one of those`, 'conflict');
  }
  return [{ type: 'MigrationReportGenerated', data: { slug: migration.slug, number, artifact: { id: reportArtifactId(run), kind: 'report', ...file }, by } }];
}
