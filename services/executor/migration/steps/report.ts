import { writeFile } from 'node:fs/promises';
import { done } from '#shared/workflow/stepOutcome.ts';
import { runReportPdf } from '#services/migrations/report/runReport.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { artifactFile, storeArtifact } from './artifact.ts';

/**
 * The run's PDF report (`<step id>.pdf`, artifact kind `report`): the same document the
 * control-plane generates on demand, made from the migration's stream as it stands while this step
 * runs (so the run shows in progress, this step as running).
 */
export const report: MigrationStep = async (context) => {
  const pdf = await runReportPdf(context.records, { slug: context.migration.slug, number: context.run.number, generatedBy: 'system', generatedAt: new Date(), self: context.step.id });
  const file = await artifactFile(context, '.pdf');
  await writeFile(file, pdf, { mode: 0o600 });
  return done({ artifact: await storeArtifact(context, 'report', file) });
};
