import type { Request, Response, Router } from 'express';
import { simpleParser } from 'mailparser';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { HttpError } from '#shared/http/errors.ts';
import { listCaughtMail, readCaughtMail } from '#shared/mail/caughtMail.ts';
import type { WebContext } from '../../context.ts';
import { render } from '../../http/render.ts';
import { route } from '../../http/route.ts';
import { downloadHeaders, messageView } from './mailView.ts';

async function instanceOf(ctx: WebContext, req: Request) {
  const slug = String(req.params['slug']);
  const instance = await getInstance(ctx.readModel, slug);
  if (!instance) throw new HttpError(404, `There is no instance ${slug}. It may have been purged.`);
  return instance;
}

/** The message the path names, whole as it came; 404 when the instance has no such message. */
async function messageOf(ctx: WebContext, req: Request) {
  const instance = await instanceOf(ctx, req);
  const id = String(req.params['mail_id']);
  const raw = await readCaughtMail(ctx.blobs, instance.slug, id);
  if (!raw) throw new HttpError(404, `${instance.name} has no caught message ${id}: the oldest go once it holds 500.`);
  return { instance, id, raw };
}

/**
 * The mail the catcher kept for one instance (its neutralized copies' mail), on web's own pages: a
 * user sees an instance's mail as they see the instance. A message's HTML is shown in a sandboxed
 * frame (no script, an origin of its own); raw messages and attachments are only ever downloads.
 */
export function instanceMailRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/instances/:slug/mail', async (req: Request, res: Response) => {
    const instance = await instanceOf(ctx, req);
    render(ctx, req, res, 'instances/mail.njk', { instance, messages: await listCaughtMail(ctx.blobs, instance.slug) });
  });

  route(router, 'GET', '/instances/:slug/mail/:mail_id', async (req: Request, res: Response) => {
    const { instance, id, raw } = await messageOf(ctx, req);
    render(ctx, req, res, 'instances/mailMessage.njk', { instance, message: messageView(id, await simpleParser(raw, { skipTextLinks: true })) });
  });

  route(router, 'GET', '/instances/:slug/mail/:mail_id/raw', async (req: Request, res: Response) => {
    const { instance, id, raw } = await messageOf(ctx, req);
    res.set(downloadHeaders(`${instance.slug}-${id}.eml`, 'message/rfc822')).send(raw);
  });

  route(router, 'GET', '/instances/:slug/mail/:mail_id/attachments/:index', async (req: Request, res: Response) => {
    const { raw } = await messageOf(ctx, req);
    const index = Number(req.params['index']);
    const attachment = Number.isInteger(index) ? (await simpleParser(raw)).attachments[index] : undefined;
    if (!attachment) throw new HttpError(404, 'This message has no such attachment.');
    // Never the sender's type: a browser would render an HTML or SVG attachment instead of saving it.
    res.set(downloadHeaders(attachment.filename ?? `attachment-${index}`, 'application/octet-stream')).send(attachment.content);
  });
}
