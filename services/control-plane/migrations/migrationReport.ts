import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadModel } from '#projections/readModel.ts';
import { assertBlobKey, type BlobStore } from '#shared/blobs/blobStore.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream, type MigrationEvent, type ReportArtifact } from '#services/migrations/domain/migration.ts';
import { runReportPdf } from '#services/migrations/report/runReport.ts';

/** The e-mail of each user id the users read model knows. */
async function emailsOf(readModel: ReadModel, actors: readonly string[]): Promise<Record<string, string>> {
  if (actors.length === 0) return {};
  const rows = await readModel.selectFrom('users').select(['user_id', 'email']).where('user_id', 'in', [...new Set(actors)]).execute();
  return Object.fromEntries(rows.map((row) => [row.user_id, row.email]));
}

/** `report-20261123T091503Z-3fa9c1.pdf`: when it was made, and a suffix so two made in the same second never share a file. */
const reportName = (at: Date) => `report-${at.toISOString().slice(0, 19).replace(/[-:]/g, '')}Z-${randomBytes(3).toString('hex')}.pdf`;

/**
 * Generates a run's PDF report on demand (synchronously), stores it beside the run's other
 * artifacts and registers it on the migration's stream. A refusal after the file was stored (the
 * migration was stopped or deleted meanwhile) removes the file again.
 */
export async function generateRunReport(
  deps: { store: EventStore; blobs: BlobStore; readModel: ReadModel },
  slug: string,
  number: number,
  metadata: EventMetadata,
): Promise<{ artifact: ReportArtifact; lastGlobalPosition: number | undefined }> {
  const at = new Date(metadata.at);
  const pdf = await runReportPdf({ store: deps.store, blobs: deps.blobs, emailsOf: (actors) => emailsOf(deps.readModel, actors) }, { slug, number, generatedBy: metadata.actor, generatedAt: at });
  const name = reportName(at);
  const key = assertBlobKey(`migrations/${slug}/runs/${number}/${name}`);
  await deps.blobs.put(key, Readable.from([pdf]));
  const file = { name, key, bytes: pdf.length, sha256: createHash('sha256').update(pdf).digest('hex') };
  try {
    const result = await handleCommand(deps.store, migrationDecider, migrationStream(slug), { type: 'RegisterReport', number, file, by: metadata.actor }, { metadata });
    const registered = result.events.find((event): event is Extract<MigrationEvent, { type: 'MigrationReportGenerated' }> => event.type === 'MigrationReportGenerated')!;
    return { artifact: registered.data.artifact, lastGlobalPosition: result.lastGlobalPosition };
  } catch (error) {
    await deps.blobs.delete(key);
    throw error;
  }
}
