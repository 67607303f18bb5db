import { isJobEnded, type JobStatus } from '#shared/workflow/jobState.ts';
import type { LiveMigration, Run } from '../domain/migration.ts';
import { ARTIFACTS_PER_RUN } from '../domain/migrationReports.ts';
import { pdfText } from './reportFormat.ts';
import type { ReadinessOut } from './readinessOf.ts';
import type { RunHistory } from './runHistory.ts';

/** Everything a run's report shows, gathered by `runReport.ts`; the document is a pure function of it. */
export interface ReportInput {
  migration: LiveMigration;
  run: Run;
  history: RunHistory;
  /** Actor ids (users) to e-mail addresses; an id not in it shows as it is. */
  emails: Readonly<Record<string, string>>;
  /** The run log's last lines: the excerpt of a failure whose event kept none. */
  logTail: readonly string[];
  generatedAt: Date;
  /** Who asked for the report: a user id, or `system` for the run's own report step. */
  generatedBy: string;
  /** The readiness report of this run's pre-flight, or of the run it resumed (readinessOf.ts). */
  readiness: ReadinessOut;
  /** The report step making this report, when a step makes it: it shows as running, whatever the state says. */
  self?: string;
}

/** An artifact as the report lists it. */
export interface ReportedArtifact {
  id: number;
  kind: string;
  name: string;
  bytes: number;
  sha256: string;
}

/** A person, by e-mail; the platform itself by name. */
export function who(input: Pick<ReportInput, 'emails'>, actor: string): string {
  if (actor === 'system') return 'Forja (automatic)';
  return pdfText(input.emails[actor] ?? actor);
}

/** `text` with every actor id it names replaced by that person's e-mail (a gate rejection's error names its user id). */
export function withEmails(input: Pick<ReportInput, 'emails'>, text: string): string {
  let out = text;
  for (const [actor, email] of Object.entries(input.emails)) out = out.replaceAll(actor, email);
  return pdfText(out);
}

const STATUS_WORDS: Record<JobStatus, string> = {
  queued: 'Queued (in progress)',
  running: 'In progress',
  waiting: 'Waiting at a gate (in progress)',
  paused: 'Paused (in progress)',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const statusWords = (status: JobStatus): string => STATUS_WORDS[status];

/** Green for done, red for failed or cancelled, amber while the run is still going. */
export function statusColor(status: JobStatus): string {
  if (status === 'succeeded') return '#15803d';
  if (isJobEnded({ status })) return '#b91c1c';
  return '#b45309';
}

/** The run's files: what its steps stored (ids as the read model numbers them), then the reports made on demand. */
export function reportedArtifacts(run: Run): ReportedArtifact[] {
  const made = run.job.plan.flatMap((step, position) => {
    const state = run.job.steps[step.id];
    const artifact = state?.status === 'completed' ? (state.facts as { artifact?: Omit<ReportedArtifact, 'id'> }).artifact : undefined;
    return artifact ? [{ id: run.number * ARTIFACTS_PER_RUN + position, kind: artifact.kind, name: artifact.name, bytes: artifact.bytes, sha256: artifact.sha256 }] : [];
  });
  return [...made, ...(run.reports ?? []).map(({ id, kind, name, bytes, sha256 }) => ({ id, kind, name, bytes, sha256 }))];
}

/** Each step's warnings (`facts.warnings`), in plan order, in full. */
export function reportedWarnings(run: Run): Array<{ step: string; kind: string; reused: boolean; warnings: string[] }> {
  return run.job.plan.flatMap((step) => {
    const state = run.job.steps[step.id];
    if (state?.status !== 'completed' && state?.status !== 'reused') return [];
    const raw = (state.facts as { warnings?: unknown }).warnings;
    const warnings = Array.isArray(raw) ? raw.filter((warning): warning is string => typeof warning === 'string') : [];
    return warnings.length > 0 ? [{ step: step.id, kind: step.type, reused: state.status === 'reused', warnings }] : [];
  });
}
