import type { ParsedMail } from 'mailparser';

export interface MessageView {
  id: string;
  subject: string;
  from: string;
  to: string;
  cc: string;
  date: string;
  text: string;
  /** The HTML part, shown only in a sandboxed frame (srcdoc): no script runs, and it has no origin of web's. */
  html: string | null;
  attachments: Array<{ index: number; filename: string; contentType: string; size: number }>;
}

const addresses = (value: ParsedMail['to']): string => [value ?? []].flat().map((address) => address.text).join(', ');

export function messageView(id: string, mail: ParsedMail): MessageView {
  return {
    id,
    subject: mail.subject ?? '(no subject)',
    from: mail.from?.text ?? '',
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    date: mail.date?.toISOString() ?? '',
    text: mail.text ?? '',
    html: typeof mail.html === 'string' ? mail.html : null,
    attachments: mail.attachments.map((attachment, index) => ({ index, filename: attachment.filename ?? `attachment-${index}`, contentType: attachment.contentType, size: attachment.size })),
  };
}

/** A name safe in a Content-Disposition header: what a sender wrote there could break it or name a path. */
export function safeFilename(name: string): string {
  const cleaned = name.replace(/[^\w.\- ]+/g, '_').replace(/^\.+/, '').slice(0, 120);
  return cleaned || 'download';
}

/**
 * Headers for what a sender wrote (a raw message, an attachment): always a download, never sniffed
 * into a page, and sandboxed should a browser render it anyway, so nothing in it runs on web's origin.
 */
export function downloadHeaders(filename: string, type: string): Record<string, string> {
  return {
    'Content-Type': type,
    'Content-Disposition': `attachment; filename="${safeFilename(filename)}"`,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "sandbox; default-src 'none'",
    'Cache-Control': 'private, no-store',
  };
}
