import type { IncomingMessage } from 'node:http';

/** maildev 2.2.1's routes (node_modules/maildev/lib/routes.js) that send a mail's own bytes. */
const DOWNLOADS = /^\/mails\/email\/[^/]+\/(?:attachment\/[^/]+|download|source)\/?$/;
const HTML_VIEW = /^\/mails\/email\/[^/]+\/html\/?$/;

/** What a mail says is never a page of the tool: no script, no same-origin access, no sniffing. */
const SANDBOX = { 'content-security-policy': 'sandbox', 'x-content-type-options': 'nosniff' };

/**
 * Headers forced on the mail catcher's answers that carry a mail's content: attachments, the raw
 * message and its download are files to save, never pages on the tool's origin; the HTML view,
 * which maildev's UI shows in a frame, is sandboxed (an opaque origin, no script).
 */
export function mailResponseHeaders(req: IncomingMessage): Record<string, string> | undefined {
  const path = (req.url ?? '').split('?', 1)[0] ?? '';
  if (DOWNLOADS.test(path)) return { ...SANDBOX, 'content-disposition': 'attachment' };
  if (HTML_VIEW.test(path)) return SANDBOX;
  return undefined;
}
