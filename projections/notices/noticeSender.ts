import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { composeNoticeMail } from '#services/notifications/migrationNotice.ts';
import type { Mailer } from '#services/notifications/mailer.ts';
import { noticeMessageId } from '#services/notifications/noticeEvents.ts';
import type { ReadModel } from '../readModel.ts';
import { createRunnerLock, sleep } from '../runner/runnerLock.ts';
import { dueNotices, nextNoticeDueAt, postponeNotice, removeNotice } from './noticeOutbox.ts';
import { noticeOutcomeRecorded, recordNoticeOutcome } from './noticeOutcomes.ts';

export interface NoticeSenderOptions {
  from: string;
  /** Web's address as users open it, for the link to the run. */
  publicUrl: string;
  /** Attempts before a notice is recorded as failed. */
  attempts: number;
  /** Wait before the second attempt; each later one doubles, up to `maxRetryMs`. */
  retryMs: number;
  maxRetryMs: number;
  /** Longest a single attempt may take, whatever the server does. */
  attemptTimeoutMs: number;
  /** Looks at the queue at least this often (another projector may have queued). */
  pollMs: number;
}

export interface NoticeSenderDeps extends NoticeSenderOptions {
  db: ReadModel;
  store: EventStore;
  mailer: Mailer;
  connectionString: string;
  logger: Logger;
}

export interface NoticeSender {
  /** A notice was queued: look at the queue now. */
  wake(): void;
  stop(): Promise<void>;
}

/** Notices handled per look at the queue; the rest wait for the next one. */
const BATCH = 20;

/** The wait after `attempts` failed attempts: retryMs, doubled each time, at most maxRetryMs. */
export const backoffMs = (attempts: number, { retryMs, maxRetryMs }: Pick<NoticeSenderOptions, 'retryMs' | 'maxRetryMs'>): number =>
  Math.min(maxRetryMs, retryMs * 2 ** Math.max(0, attempts - 1));

/**
 * Delivers the queued notices, one at a time, off the projector's batches. One sender is active
 * across processes (the runners' advisory lock). Each attempt is bounded in time; a failed one is
 * retried with exponential backoff, and the last one is recorded as `MigrationNoticeFailed`.
 * A notice whose outcome is already an event is dropped unsent: a crash between sending and
 * taking it off the queue costs at most one more e-mail (with the same Message-ID).
 */
export function startNoticeSender(deps: NoticeSenderDeps): NoticeSender {
  const controller = new AbortController();
  const lock = createRunnerLock(deps.connectionString, 'migration_notice_sender');
  let wakeUp: (() => void) | null = null;
  /** A wake that came while the sender was busy: the next wait is skipped. */
  let wakePending = false;

  /** Until a notice is due, a wake, or the next poll, whichever comes first. */
  const waitForWork = async (): Promise<void> => {
    const next = await nextNoticeDueAt(deps.db);
    const waitMs = next ? Math.max(0, Math.min(deps.pollMs, next.getTime() - Date.now())) : deps.pollMs;
    const waiting = new AbortController();
    wakeUp = () => waiting.abort();
    if (!wakePending) await sleep(waitMs, AbortSignal.any([controller.signal, waiting.signal]));
    wakeUp = null;
    wakePending = false;
  };

  async function deliver(row: Awaited<ReturnType<typeof dueNotices>>[number]): Promise<void> {
    const notice = row.notice;
    if (await noticeOutcomeRecorded(deps.store, notice.slug, notice.eventId)) return removeNotice(deps.db, notice.eventId);
    const mail = composeNoticeMail(notice, deps.publicUrl);
    const attempts = row.attempts + 1;
    const base = { slug: notice.slug, number: notice.run, eventId: notice.eventId, kind: notice.kind, attempts };
    let receipt;
    const deadline = AbortSignal.timeout(deps.attemptTimeoutMs);
    try {
      const signal = AbortSignal.any([controller.signal, deadline]);
      receipt = await deps.mailer.send({ from: deps.from, to: notice.to, subject: mail.subject, text: mail.text, messageId: noticeMessageId(notice.eventId, deps.publicUrl), headers: { 'X-Forja-Event': notice.eventId } }, signal);
    } catch (error) {
      if (controller.signal.aborted) return; // stopping: the attempt does not count
      const message = deadline.aborted ? `no answer within ${deps.attemptTimeoutMs} ms (${(error as Error).message})` : (error as Error).message;
      if (attempts >= deps.attempts) {
        await recordNoticeOutcome(deps.store, { type: 'MigrationNoticeFailed', data: { ...base, to: notice.to, error: message } }, row.correlation_id, new Date());
        await removeNotice(deps.db, notice.eventId);
        deps.logger.error({ slug: notice.slug, eventId: notice.eventId, attempts, err: error }, 'notice not sent: last attempt failed');
        return;
      }
      const waitMs = backoffMs(attempts, deps);
      await postponeNotice(deps.db, notice.eventId, attempts, new Date(Date.now() + waitMs), message);
      deps.logger.warn({ slug: notice.slug, eventId: notice.eventId, attempts, retryInMs: waitMs, err: message }, 'notice not sent; will retry');
      return;
    }
    const sent = { ...base, to: receipt.accepted, rejected: receipt.rejected, messageId: receipt.messageId, via: receipt.via ?? deps.mailer.via };
    await recordNoticeOutcome(deps.store, { type: 'MigrationNoticeSent', data: sent }, row.correlation_id, new Date());
    await removeNotice(deps.db, notice.eventId);
  }

  const loop = (async () => {
    while (!controller.signal.aborted) {
      if (!(await lock.acquire(controller.signal, deps.pollMs))) break;
      try {
        while (!controller.signal.aborted && lock.held) {
          for (const row of await dueNotices(deps.db, new Date(), BATCH)) {
            if (controller.signal.aborted) break;
            await deliver(row);
          }
          await waitForWork();
        }
      } catch (error) {
        // The read model or the event store is away: the queue keeps every notice for later.
        deps.logger.error({ err: error }, 'notice sender failed; retrying');
        await lock.release();
        await sleep(deps.pollMs, controller.signal);
      }
    }
    await lock.release();
  })();

  return {
    wake() {
      wakePending = true;
      wakeUp?.();
    },
    async stop() {
      controller.abort();
      await loop;
      deps.mailer.close();
    },
  };
}
