import { createHash } from 'node:crypto';
import type { NoticeKind } from './migrationNotice.ts';

/**
 * What became of each notice, as events on `migrationNotice-<slug>`: a stream of their own, so
 * recording one never races the executor's appends to the run's stream (`migration-<slug>`).
 */

interface NoticeOutcomeData {
  slug: string;
  number: number;
  /** The run event the notice was about. */
  eventId: string;
  kind: NoticeKind;
  /** Attempts it took, this one included. */
  attempts: number;
}

export type MigrationNoticeEvent =
  | {
      type: 'MigrationNoticeSent';
      data: NoticeOutcomeData & {
        /** Addresses the server took. */
        to: string[];
        /** Addresses the server refused while taking the others. */
        rejected: string[];
        messageId: string;
        /** `smtp` (FORJA_SMTP_URL) or `file` (an .eml under FORJA_DATA_DIR/mail). */
        via: 'smtp' | 'file';
      };
    }
  | { type: 'MigrationNoticeFailed'; data: NoticeOutcomeData & { to: string[]; error: string } };

export const migrationNoticeStream = (slug: string): string => `migrationNotice-${slug}`;

/**
 * The id of the outcome event of the notice about `eventId`, the same for `Sent` and `Failed`:
 * the event store takes a re-append of an id as done, so a notice has at most one outcome however
 * often a crashed sender or a replayed reactor gets to it. A UUID (version 8, name-based on
 * SHA-256) because both event stores want one.
 */
export function noticeOutcomeId(eventId: string): string {
  const hex = createHash('sha256').update(`forja:migration-notice:${eventId}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The Message-ID of the notice's e-mail: a re-send after a crash carries the same one, so mail clients show it once. */
export const noticeMessageId = (eventId: string, publicUrl: string): string => `<notice.${eventId}@${new URL(publicUrl).hostname}>`;
