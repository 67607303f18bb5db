import type { Request, Response, Router } from 'express';
import { listSshKeys } from '#projections/sshKeys/sshKeys.ts';
import { roleAtLeast } from '#shared/auth/roles.ts';
import type { WebContext } from '../context.ts';
import { CommandRefused, type SshKeyCreateBody } from '../controlPlaneClient.ts';
import { flash, render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf } from '../instances/instanceRequest.ts';

const KEY_TYPES = ['ed25519', 'ecdsa', 'rsa'] as const;

/** A refused form: which one, the fields to put back (never a pasted key or passphrase), and what was wrong per field. */
interface KeyForm {
  mode: 'generate' | 'paste';
  name: string;
  keyType?: string;
  errors: Record<string, string>;
}

async function showKeyring(ctx: WebContext, req: Request, res: Response, form?: KeyForm) {
  const keys = await listSshKeys(ctx.readModel);
  render(ctx, req, res, 'sshKeys/list.njk', { keys, form, keyTypes: KEY_TYPES, canManage: roleAtLeast(actorOf(res).role, 'admin') });
}

/** The field each refusal belongs to: the control-plane names it in `loc`; anything unnamed goes with the key text. */
function fieldErrors(error: CommandRefused, mode: KeyForm['mode']): Record<string, string> {
  if (typeof error.detail === 'string') return { [mode === 'generate' ? 'name' : 'private_key']: error.detail };
  const errors: Record<string, string> = {};
  for (const issue of error.detail) {
    const field = typeof issue.loc[1] === 'string' ? issue.loc[1] : mode === 'generate' ? 'name' : 'private_key';
    errors[field] ??= issue.msg;
  }
  return errors;
}

/** The shared keyring: developers read it, admins generate, paste and delete keys. */
export function sshKeyRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/ssh-keys', (req: Request, res: Response) => showKeyring(ctx, req, res));

  route(router, 'POST', '/ssh-keys', async (req: Request, res: Response) => {
    const fields = req.body as Record<string, string | undefined>;
    const mode = fields['mode'] === 'generate' ? 'generate' : 'paste';
    const name = String(fields['name'] ?? '');
    const keyType = String(fields['key_type'] ?? 'ed25519');
    const body: SshKeyCreateBody =
      mode === 'generate'
        ? { name, generate: true, key_type: (KEY_TYPES as readonly string[]).includes(keyType) ? (keyType as SshKeyCreateBody['key_type']) : 'ed25519' }
        : { name, private_key: String(fields['private_key'] ?? ''), ...(fields['passphrase'] ? { passphrase: String(fields['passphrase']) } : {}) };
    try {
      const created = await ctx.controlPlane.createSshKey(actorOf(res).user_id, body);
      flash(req, 'success', `Key ${created.name} added (${created.fingerprint}). Copy its public key to the git host as a deploy key, then add the key to a project.`);
      seeOther(res, `/ssh-keys#key-${created.id}`);
    } catch (error) {
      if (!(error instanceof CommandRefused) || ![409, 422].includes(error.status)) throw error;
      res.status(422);
      await showKeyring(ctx, req, res, { mode, name, keyType, errors: fieldErrors(error, mode) });
    }
  });

  route(router, 'POST', '/ssh-keys/:key_id/delete', async (req: Request, res: Response) => {
    const keyId = Number(req.params['key_id']);
    try {
      await ctx.controlPlane.deleteSshKey(actorOf(res).user_id, keyId);
      flash(req, 'success', 'Key deleted: its private key is destroyed, and the projects that used it no longer have it.');
    } catch (error) {
      if (!(error instanceof CommandRefused) || ![404, 422].includes(error.status)) throw error;
      flash(req, 'error', `Nothing was deleted: ${error.message}`);
    }
    seeOther(res, '/ssh-keys');
  });
}
