import { createHmac, timingSafeEqual } from 'node:crypto';

/** The deterministic git push hook token of a project: HMAC-SHA256 of its slug under FORJA_WEBHOOK_SECRET, hex. */
export function webhookToken(secret: string, slug: string): string {
  return createHmac('sha256', secret).update(slug).digest('hex');
}

export function webhookPath(secret: string, slug: string): string {
  return `/webhooks/git/${slug}/${webhookToken(secret, slug)}`;
}

/** Constant-time check of a presented token. */
export function webhookTokenMatches(secret: string, slug: string, presented: string): boolean {
  const expected = Buffer.from(webhookToken(secret, slug));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
