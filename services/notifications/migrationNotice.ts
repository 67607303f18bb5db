import { evolveMigration, initialMigrationState, type MigrationEvent, type MigrationState } from '#services/migrations/domain/migration.ts';

/**
 * What a migration run tells its `notify_to` list, and the e-mail that says it. Pure: the reactor
 * reads the migration's stream and hands it here; the sender composes the mail when it sends.
 */

/** The run events that are worth an e-mail: the run ended, or an operator must decide. */
export const NOTICE_EVENT_TYPES = ['MigrationJobSucceeded', 'MigrationJobFailed', 'MigrationGateReached'] as const;
export type NoticeEventType = (typeof NOTICE_EVENT_TYPES)[number];

export type NoticeKind = 'succeeded' | 'failed' | 'gate';

const KIND_OF: Record<NoticeEventType, NoticeKind> = { MigrationJobSucceeded: 'succeeded', MigrationJobFailed: 'failed', MigrationGateReached: 'gate' };
/** The migration's status each notice leaves it in, as the API and the pages name it. */
const STATUS_OF: Record<NoticeKind, string> = { succeeded: 'migrated', failed: 'errored', gate: 'waiting' };
/** The last lines of the failed step's log a failure notice quotes; the run page has the rest. */
const LOG_TAIL_LINES = 20;

export interface MigrationNotice {
  /** The run event the notice is about: what de-duplicates it. */
  eventId: string;
  kind: NoticeKind;
  slug: string;
  name: string;
  run: number;
  to: string[];
  route: { origin: string; destination: string; flavor: string; engine: string; purpose: string };
  /** The failed step or the gate; null for a success. */
  step: string | null;
  /** The failure's error or the gate's question; null for a success. */
  message: string | null;
  logTail: string[];
  /** When the run event was decided (ISO 8601). */
  at: string;
}

export interface NoticeMail {
  subject: string;
  text: string;
  /** The run's page on web. */
  link: string;
}

interface SourceEvent {
  id: string;
  type: string;
  data: unknown;
  metadata: { at: string };
}

export const isNoticeEvent = (type: string): type is NoticeEventType => (NOTICE_EVENT_TYPES as readonly string[]).includes(type);

/**
 * The notice `event` calls for, given the migration's stream up to and including it (so the
 * notify-to list is the one the migration had then), or null: not a notice event, no such
 * migration, or nobody to tell.
 */
export function noticeFor(event: SourceEvent, history: readonly MigrationEvent[]): MigrationNotice | null {
  if (!isNoticeEvent(event.type)) return null;
  const migration = history.reduce<MigrationState>(evolveMigration, initialMigrationState());
  if (migration.status === 'none' || migration.notifyTo.length === 0) return null;
  const data = event.data as { slug: string; number: number; jobId: string; step?: string; error?: string; message?: string };
  const kind = KIND_OF[event.type];
  const step = kind === 'succeeded' ? null : (data.step ?? null);
  return {
    eventId: event.id,
    kind,
    slug: data.slug,
    name: migration.name,
    run: data.number,
    to: [...migration.notifyTo],
    route: { origin: migration.origin, destination: migration.destination, flavor: migration.flavor, engine: migration.engine, purpose: migration.purpose },
    step,
    message: kind === 'failed' ? (data.error ?? null) : kind === 'gate' ? (data.message ?? null) : null,
    logTail: kind === 'failed' && step ? failedStepLogTail(history, data.jobId, step) : [],
    at: event.metadata.at,
  };
}

/** The log lines the step's last failure kept, as its `MigrationStepFailed` recorded them. */
function failedStepLogTail(history: readonly MigrationEvent[], jobId: string, step: string): string[] {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const event = history[i]!;
    if (event.type === 'MigrationStepFailed' && event.data.jobId === jobId && event.data.step === step) return event.data.logTail.slice(-LOG_TAIL_LINES);
  }
  return [];
}

/** A header holds one line: a name typed with a line break must not start a header of its own. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The run's page: `<publicUrl>/migrations/<slug>/runs/<n>`. */
export const runLink = (publicUrl: string, slug: string, run: number): string => `${publicUrl.replace(/\/+$/, '')}/migrations/${encodeURIComponent(slug)}/runs/${run}`;

export function composeNoticeMail(notice: MigrationNotice, publicUrl: string): NoticeMail {
  const what =
    notice.kind === 'succeeded' ? 'succeeded' : notice.kind === 'failed' ? `failed at step ${notice.step ?? '?'}` : `waits at gate ${notice.step ?? '?'}`;
  const subject = oneLine(`[Forja] ${notice.name}: run ${notice.run} ${what}`);
  const link = runLink(publicUrl, notice.slug, notice.run);
  const { origin, destination, flavor, engine, purpose } = notice.route;
  const field = (label: string, value: string) => `${`${label}:`.padEnd(9)}${value}`;
  const lines = [
    `Migration "${oneLine(notice.name)}" (${notice.slug}): run ${notice.run} ${what}.`,
    '',
    field('Route', `${origin} -> ${destination}, ${flavor}, ${engine} (${purpose})`),
    field('Status', STATUS_OF[notice.kind]),
    ...(notice.step ? [field(notice.kind === 'gate' ? 'Gate' : 'Step', notice.step)] : []),
    ...(notice.message !== null ? [field(notice.kind === 'gate' ? 'Asks' : 'Error', notice.message)] : []),
    field('When', notice.at),
    '',
    `${notice.kind === 'gate' ? 'Approve or reject it on' : 'Open'} the run's page: ${link}`,
    ...(notice.logTail.length > 0 ? ['', `Last lines of ${notice.step ?? 'the step'}'s log:`, ...notice.logTail.map((line) => `  ${line}`)] : []),
    '',
    '-- ',
    "Forja sends this to the migration's notify-to list; edit the migration to change it.",
  ];
  return { subject, text: `${lines.join('\n')}\n`, link };
}
