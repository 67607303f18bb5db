import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { uploadKeys, type UploadKeys } from '#shared/blobs/blobKeys.ts';
import { formatBytes } from '#shared/formatBytes.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import type { MigrationCreateBody } from '../controlPlaneClient.ts';
import { allowSlowBody } from '../http/bodyDeadline.ts';
import { flash, render, seeOther } from '../http/render.ts';
import { actorOf } from '../instances/instanceRequest.ts';
import { receiveUpload, type ReceivedUpload } from '../instances/uploadReceiver.ts';
import type { UploadDumpFormat } from '../instances/uploadFormats.ts';
import { CodeLineError, CREATE_FIELDS, createBody, FORM_CHOICES, formInput, type MigrationFormInput, refusalOf, errorsByField } from './migrationForm.ts';

/** Room for the form's text fields and multipart framing on top of the files. */
const FORM_OVERHEAD = 1024 * 1024;
const NO_SOURCE = 'give the download address of the dump, or choose the dump file to upload';

export function showCreateForm(ctx: WebContext, req: Request, res: Response, input: MigrationFormInput, errors: Record<string, string> = {}): void {
  render(ctx, req, res, 'migrations/new.njk', { input, errors, choices: FORM_CHOICES, maxSize: formatBytes(ctx.settings.FORJA_UPLOAD_MAX_BYTES) });
}

/** A refused form keeps nothing: the files go, the form comes back with what was typed and the reasons. */
async function refuse(ctx: WebContext, req: Request, res: Response, keys: UploadKeys | undefined, input: MigrationFormInput, errors: Record<string, string>): Promise<void> {
  if (keys) await ctx.blobs.deletePrefix(keys.prefix);
  res.status(422);
  showCreateForm(ctx, req, res, input, errors);
}

/** Problems of the database's source the receiver cannot see: one source, and a filestore only beside a dump. */
function sourceErrors(input: MigrationFormInput, received: ReceivedUpload<UploadDumpFormat>): Record<string, string> {
  const errors = { ...received.errors };
  const dumpChosen = received.files.dump !== undefined || errors['dump'] !== undefined;
  if (dumpChosen && input.pull_url.trim()) errors['dump'] = 'give either the download address or a dump file, not both';
  else if (received.files.filestore && !dumpChosen) errors['filestore'] = 'a filestore archive goes with an uploaded dump: choose the dump file too, or leave this empty';
  return errors;
}

function uploadBody(uploadId: string, received: ReceivedUpload<UploadDumpFormat>): MigrationCreateBody['upload'] {
  const { dump, filestore } = received.files;
  if (!dump) return undefined;
  return { upload_id: uploadId, dump_name: dump.name, filestore_name: filestore?.name ?? null, bytes: dump.bytes, sha256: dump.sha256 };
}

function createdText(name: string, upload: MigrationCreateBody['upload'], received?: ReceivedUpload<UploadDumpFormat>): string {
  if (!upload) return `Migration ${name} created as a draft: run it when you are ready.`;
  const what = received?.dump === 'zip' ? `ERP backup ${upload.dump_name}${received.backup?.filestore ? ' with its filestore' : ''}` : upload.dump_name;
  const filestore = upload.filestore_name ? ` and ${upload.filestore_name}` : '';
  return `Migration ${name} created as a draft from the uploaded ${what} (${formatBytes(upload.bytes)})${filestore}: run it when you are ready.`;
}

/** Sends the create command; a refusal re-renders the form with each reason at its field and drops the upload. */
async function create(ctx: WebContext, req: Request, res: Response, input: MigrationFormInput, upload: MigrationCreateBody['upload'], keys?: UploadKeys, received?: ReceivedUpload<UploadDumpFormat>): Promise<void> {
  let body: MigrationCreateBody;
  try {
    body = createBody(input, upload);
  } catch (error) {
    if (!(error instanceof CodeLineError)) throw error;
    return refuse(ctx, req, res, keys, input, { code: error.message });
  }
  try {
    const created = await ctx.controlPlane.createMigration(actorOf(res).user_id, body);
    flash(req, 'success', createdText(created.name, upload, received));
    seeOther(res, `/migrations/${created.slug}`);
  } catch (error) {
    // Only a refusal: after another failure the migration may exist after all, and would need its files.
    const refusal = refusalOf(error);
    const { upload: uploadError, ...errors } = errorsByField(refusal, body, [...CREATE_FIELDS, 'upload']);
    if (uploadError) errors['dump'] = uploadError;
    // With no source the control-plane refuses at once; it speaks of its API, the form of its own fields.
    if (!body.pull_url && !body.upload) errors['pull_url'] = NO_SOURCE;
    await refuse(ctx, req, res, keys, input, errors);
  }
}

/**
 * POST /migrations/new: the multipart form streams the dump (custom, plain SQL or an ERP backup
 * .zip) and the filestore archive to blob storage through the upload receiver, never into memory,
 * then asks the control-plane for the draft. A urlencoded post (no files) takes the address only.
 */
export async function createMigrationFromForm(ctx: WebContext, req: Request, res: Response): Promise<void> {
  if (!req.is('multipart/form-data')) return create(ctx, req, res, formInput(req.body as Record<string, unknown>).input, undefined);
  const maxBytes = ctx.settings.FORJA_UPLOAD_MAX_BYTES;
  // Only here, past the developer guard: gigabytes take longer than FORJA_BODY_TIMEOUT_S.
  allowSlowBody(res);
  if (Number(req.get('content-length') ?? 0) > maxBytes + FORM_OVERHEAD) {
    // Do not read gigabytes only to refuse them: answer and close the connection.
    res.set('Connection', 'close');
    throw new HttpError(413, `The upload is larger than ${formatBytes(maxBytes)}, the most Forja takes.`);
  }
  const uploadId = randomUUID();
  const keys = uploadKeys(uploadId);
  let received: ReceivedUpload<UploadDumpFormat>;
  try {
    received = await receiveUpload(req, ctx.blobs, keys, maxBytes, res.locals['csrfInBody'] === true, { zipDump: true });
  } catch (error) {
    await ctx.blobs.deletePrefix(keys.prefix);
    if (error instanceof HttpError && error.status === 403) res.set('Connection', 'close');
    throw error;
  }
  const { input } = formInput(received.fields);
  const errors = sourceErrors(input, received);
  if (Object.keys(errors).length > 0) return refuse(ctx, req, res, keys, input, errors);
  await create(ctx, req, res, input, uploadBody(uploadId, received), keys, received);
}
