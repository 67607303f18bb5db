import { assertBlobKey, BlobNotFoundError, type BlobStore } from '#shared/blobs/blobStore.ts';
import { readinessOf } from './readinessOf.ts';
import { DomainError } from '#shared/decider/decider.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { evolveMigration, initialMigrationState, migrationStream, type MigrationEvent } from '../domain/migration.ts';
import { reportDocument } from './reportDocument.ts';
import { renderPdf } from './renderPdf.ts';
import { LOG_EXCERPT_LINES } from './reportSections.ts';
import { runHistory } from './runHistory.ts';

/** Where a report's facts come from besides the migration's stream. The control-plane and the executor each give their own. */
export interface ReportSources {
  store: EventStore;
  blobs: BlobStore;
  /** The e-mail of each actor id it knows (users); the others are left out. */
  emailsOf(actors: readonly string[]): Promise<Record<string, string>>;
}

export interface ReportRequest {
  slug: string;
  number: number;
  /** A user id, or `system` for the run's report step. */
  generatedBy: string;
  generatedAt: Date;
  /** The report step making it, when a step does. */
  self?: string;
}

/** The key of a run's log, as the executor writes it (FORJA_DATA_DIR/migrations/<slug>/runs/<n>/run.log). */
const runLogKey = (slug: string, number: number) => assertBlobKey(`migrations/${slug}/runs/${number}/run.log`);

/** The last lines of a log blob, reading at most its last 64 KiB; none when it is not there. */
export async function blobLogTail(blobs: BlobStore, key: string, count = LOG_EXCERPT_LINES): Promise<string[]> {
  const stat = await blobs.stat(key);
  if (!stat) return [];
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await blobs.get(key, { start: Math.max(0, stat.size - 64 * 1024) })) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-count);
  } catch (error) {
    if (error instanceof BlobNotFoundError) return [];
    throw error;
  }
}

/**
 * The PDF report of run `number`, from the migration's recorded events (times and actors the
 * folded state forgets), the actors' e-mails and the run log. A run that is still going gets a
 * report of where it stands. No such migration or run: a `not_found` DomainError.
 */
export async function runReportPdf(sources: ReportSources, request: ReportRequest): Promise<Buffer> {
  const { slug, number } = request;
  const { events } = await sources.store.readStream<MigrationEvent>(migrationStream(slug));
  const state = events.reduce((folded, { type, data }) => evolveMigration(folded, { type, data } as MigrationEvent), initialMigrationState());
  if (state.status === 'none' || state.deleted) throw new DomainError(`no migration ${slug}`, 'not_found');
  const run = state.runs.find((candidate) => candidate.number === number);
  const history = run ? runHistory(events, number) : null;
  if (!run || !history) throw new DomainError(`migration ${slug} has no run ${number}`, 'not_found');
  const emails = await sources.emailsOf([...history.actors, request.generatedBy].filter((actor) => actor !== 'system'));
  const logTail = await blobLogTail(sources.blobs, runLogKey(slug, number));
  // This run's report, or that of the run whose pre-flight it reused.
  const readiness = await readinessOf(sources.blobs, slug, state.runs.map((candidate) => candidate.number).filter((candidate) => candidate <= number).sort((a, b) => b - a));
  return renderPdf(reportDocument({ migration: state, run, history, emails, logTail, readiness, generatedAt: request.generatedAt, generatedBy: request.generatedBy, ...(request.self ? { self: request.self } : {}) }));
}
