import { randomUUID } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { uploadKeys, type UploadKeys } from '#shared/blobs/blobKeys.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { allowSlowBody } from '../http/bodyDeadline.ts';
import { checkCsrfInHandler } from '../http/csrf.ts';
import { jobFlash, render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { createBody, errorsByField, FORM_CHOICES, FORM_DEFAULTS, formInput, projectChoices, projectNamed, refusalOf, type InstanceFormInput } from './instanceForm.ts';
import { actorOf, queryString } from './instanceRequest.ts';
import { formatBytes } from '#shared/formatBytes.ts';
import { receiveUpload } from './uploadReceiver.ts';

const UPLOAD_FIELDS = ['name', 'project', 'stage', 'erp_version', 'edition', 'modules', 'git_repo', 'branch', 'dump', 'filestore'];
/** Room for the form's text fields and multipart framing on top of the files. */
const FORM_OVERHEAD = 1024 * 1024;

async function showUploadForm(ctx: WebContext, req: Request, res: Response, input: InstanceFormInput, errors: Record<string, string> = {}) {
  const [project, projects] = await Promise.all([projectNamed(ctx, input.project), projectChoices(ctx)]);
  render(ctx, req, res, 'instances/upload.njk', { input, errors, project, projects, choices: FORM_CHOICES, maxSize: formatBytes(ctx.settings.FORJA_UPLOAD_MAX_BYTES) });
}

/** A refused upload keeps nothing: the files go, the form comes back with the input and the reasons. */
async function refuse(ctx: WebContext, req: Request, res: Response, keys: UploadKeys, input: InstanceFormInput, errors: Record<string, string>) {
  await ctx.blobs.deletePrefix(keys.prefix);
  res.status(422).set('HX-Push-Url', '/instances/upload');
  await showUploadForm(ctx, req, res, input, errors);
}

export function uploadRoutes(router: Router, ctx: WebContext): void {
  const maxBytes = ctx.settings.FORJA_UPLOAD_MAX_BYTES;
  checkCsrfInHandler('/instances/upload');

  route(router, 'GET', '/instances/upload', (req: Request, res: Response) => showUploadForm(ctx, req, res, { ...FORM_DEFAULTS, project: queryString(req, 'project') }));

  route(router, 'POST', '/instances/upload', async (req: Request, res: Response) => {
    // Only here, past the developer guard: gigabytes take longer than FORJA_BODY_TIMEOUT_S.
    allowSlowBody(res);
    if (!req.is('multipart/form-data')) {
      res.status(422);
      return showUploadForm(ctx, req, res, formInput((req.body ?? {}) as Record<string, unknown>), { _form: 'Send this form as multipart/form-data, with the dump file.' });
    }
    if (Number(req.get('content-length') ?? 0) > maxBytes + FORM_OVERHEAD) {
      // Do not read gigabytes only to refuse them: answer and close the connection.
      res.set('Connection', 'close');
      throw new HttpError(413, `The upload is larger than ${formatBytes(maxBytes)}, the most Forja takes.`);
    }
    const uploadId = randomUUID();
    // Customer dumps: the blob store keeps them Forja's alone, never readable by the database servers' users.
    const keys = uploadKeys(uploadId);
    let received;
    try {
      received = await receiveUpload(req, ctx.blobs, keys, maxBytes, res.locals['csrfInBody'] === true);
    } catch (error) {
      await ctx.blobs.deletePrefix(keys.prefix);
      if (error instanceof HttpError && error.status === 403) res.set('Connection', 'close');
      throw error;
    }
    const input = formInput(received.fields);
    const errors = { ...received.errors };
    if (!received.dump && !errors['dump']) errors['dump'] = 'choose the dump file (pg_dump custom format or plain SQL)';
    if (Object.keys(errors).length > 0 || !received.dump) return refuse(ctx, req, res, keys, input, errors);
    const body = { ...createBody(input), upload: { upload_id: uploadId, dump_format: received.dump, has_filestore: received.filestore } };
    delete body.clone_from;
    try {
      const created = await ctx.controlPlane.createInstance(actorOf(res).user_id, body);
      jobFlash(req, `Instance ${created.name} requested: its database is restored from the uploaded dump.`);
      seeOther(res, `/instances/${created.slug}`);
    } catch (error) {
      await refuse(ctx, req, res, keys, input, errorsByField(refusalOf(error), body, UPLOAD_FIELDS));
    }
  });
}
