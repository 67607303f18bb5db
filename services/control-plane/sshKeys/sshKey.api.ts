import type { NextFunction, Request, Response, Router } from 'express';
import { findSshKey, listSshKeys, type SshKeyRow } from '#projections/sshKeys/sshKeys.ts';
import { HttpError, RequestValidationError } from '#shared/http/errors.ts';
import type { SshKeyType } from '#shared/ssh/keyMaterial.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody } from '../http/validate.ts';
import { commandMetadata } from '../projects/project.api.ts';

export const SSH_KEY_READ_MODELS = ['ssh_keys'] as const;

interface SshKeyCreateBody {
  name: string;
  generate?: boolean;
  key_type?: SshKeyType;
  private_key?: string;
  passphrase?: string;
}

/** SshKeyOut: what may be shown of a key. */
export function sshKeyOut(row: Omit<SshKeyRow, 'projects' | 'created_by_email'> & { projects?: string[] }) {
  return {
    id: row.key_id,
    name: row.name,
    type: row.key_type,
    bits: row.bits,
    fingerprint: row.fingerprint,
    public_key: row.public_key,
    origin: row.origin,
    projects: row.projects ?? [],
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}

/** `:key_id` is a positive 32-bit integer; anything else is a 422, not a lookup. */
export function validateKeyId(req: Request, _res: Response, next: NextFunction): void {
  const raw = String(req.params['key_id'] ?? '');
  const keyId = Number(raw);
  if (!/^[1-9][0-9]{0,9}$/.test(raw) || keyId > 2_147_483_647) {
    next(new RequestValidationError([{ loc: ['path', 'key_id'], msg: 'a key id is a positive integer', type: 'value_error.key_id' }]));
    return;
  }
  next();
}

async function createKey(ctx: ControlPlaneContext, req: Request, res: Response): Promise<void> {
  const body = req.body as SshKeyCreateBody;
  const created = await ctx.keyring.create(
    {
      name: body.name,
      ...(body.generate !== undefined ? { generate: body.generate } : {}),
      ...(body.key_type ? { keyType: body.key_type } : {}),
      ...(body.private_key !== undefined ? { privateKey: body.private_key } : {}),
      ...(body.passphrase !== undefined ? { passphrase: body.passphrase } : {}),
    },
    commandMetadata(req, actingUser(res.locals)),
  );
  await ctx.waitForProjections(created.lastGlobalPosition, SSH_KEY_READ_MODELS);
  const row = await findSshKey(ctx.readModel, created.key.keyId);
  if (!row) throw new HttpError(404, `key ${created.key.keyId} was deleted meanwhile`);
  res.status(201).location(`/api/v1/ssh-keys/${row.key_id}`).json(sshKeyOut(row));
}

async function deleteKey(ctx: ControlPlaneContext, req: Request, res: Response): Promise<void> {
  const result = await ctx.keyring.delete(Number(req.params['key_id']), commandMetadata(req, actingUser(res.locals)));
  await ctx.waitForProjections(result.lastGlobalPosition, SSH_KEY_READ_MODELS);
}

/** The shared keyring: `/api/v1/ssh-keys` for automation, `/internal/ssh-keys` for web's forms. */
export function sshKeyApi(router: Router, ctx: ControlPlaneContext): void {
  route(router, ctx, 'GET', '/api/v1/ssh-keys', async (_req: Request, res: Response) => {
    res.json((await listSshKeys(ctx.readModel)).map(sshKeyOut));
  });
  route(router, ctx, 'POST', '/api/v1/ssh-keys', validateBody('api/SshKeyCreate.v1.json'), (req: Request, res: Response) => createKey(ctx, req, res));
  route(router, ctx, 'DELETE', '/api/v1/ssh-keys/:key_id', validateKeyId, async (req: Request, res: Response) => {
    await deleteKey(ctx, req, res);
    res.status(204).end();
  });
  route(router, ctx, 'POST', '/internal/ssh-keys', validateBody('api/SshKeyCreate.v1.json'), (req: Request, res: Response) => createKey(ctx, req, res));
  route(router, ctx, 'POST', '/internal/ssh-keys/:key_id/delete', validateKeyId, async (req: Request, res: Response) => {
    await deleteKey(ctx, req, res);
    res.json({ id: Number(req.params['key_id']), deleted: true });
  });
}
