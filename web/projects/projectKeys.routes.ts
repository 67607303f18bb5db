import type { Request, Response, Router } from 'express';
import { listSshKeys, projectHostKeys, projectSshKeys } from '#projections/sshKeys/sshKeys.ts';
import { roleAtLeast, type Role } from '#shared/auth/roles.ts';
import type { WebContext } from '../context.ts';
import { CommandRefused, type RepoVerifyOut } from '../controlPlaneClient.ts';
import { flash, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf } from '../instances/instanceRequest.ts';

/** What the project page shows about SSH: its keys, the keyring keys it could add, its pinned host keys. */
export async function projectKeysView(ctx: WebContext, slug: string, role: Role) {
  const [keys, hostKeys, keyring] = await Promise.all([
    projectSshKeys(ctx.readModel, slug),
    projectHostKeys(ctx.readModel, slug),
    // Public keys and fingerprints are no secret, but the keyring is the developers' business.
    roleAtLeast(role, 'developer') ? listSshKeys(ctx.readModel) : Promise.resolve([]),
  ]);
  const taken = new Set(keys.map((key) => key.key_id));
  return {
    projectKeys: keys,
    liveKeyCount: keys.filter((key) => key.key_deleted_at === null).length,
    hostKeys,
    addableKeys: keyring.filter((key) => !taken.has(key.key_id)),
    canForgetHostKeys: roleAtLeast(role, 'admin'),
  };
}

/** Plain words for a verification row's status. */
export const VERIFY_STATUS_WORDS: Record<string, string> = {
  ok: 'ok',
  auth_failed: 'authentication failed',
  host_key_changed: 'host key changed',
  not_found: 'not found',
  unreachable: 'unreachable',
  timeout: 'timed out',
};

type ShowDetail = (req: Request, res: Response, forms?: Record<string, { value?: string; error?: string }>, extra?: Record<string, unknown>) => Promise<void>;

/** Re-renders the project page with the refusal when the control-plane refused; anything else is a real error. */
function refusal(error: unknown): CommandRefused {
  if (error instanceof CommandRefused && [404, 409, 422].includes(error.status)) return error;
  throw error;
}

/** A project's SSH keys, host keys and repository verification. */
export function projectKeyRoutes(router: Router, ctx: WebContext, showDetail: ShowDetail): void {
  route(router, 'POST', '/projects/:slug/ssh-keys/add', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const keyId = Number((req.body as { key_id?: string }).key_id);
    try {
      await ctx.controlPlane.addProjectKey(actorOf(res).user_id, slug, keyId);
      flash(req, 'success', 'Key added: clones, fetches and verification of this project now offer it.');
      seeOther(res, `/projects/${slug}#ssh-keys`);
    } catch (error) {
      const why = refusal(error);
      res.status(why.status === 404 && !Number.isInteger(keyId) ? 422 : why.status);
      await showDetail(req, res, { keys: { error: Number.isInteger(keyId) && keyId > 0 ? (why.messageFor('key_id') ?? why.message) : 'choose a key of the keyring' } });
    }
  });

  route(router, 'POST', '/projects/:slug/ssh-keys/:key_id/remove', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    try {
      await ctx.controlPlane.removeProjectKey(actorOf(res).user_id, slug, Number(req.params['key_id']));
      flash(req, 'success', 'Key removed from this project; it stays in the keyring.');
      seeOther(res, `/projects/${slug}#ssh-keys`);
    } catch (error) {
      const why = refusal(error);
      res.status(why.status);
      await showDetail(req, res, { keys: { error: why.message } });
    }
  });

  route(router, 'POST', '/projects/:slug/host-keys/forget', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const fields = req.body as { host?: string; port?: string };
    try {
      await ctx.controlPlane.forgetHostKey(actorOf(res).user_id, slug, String(fields.host ?? ''), Number(fields.port ?? 22));
      flash(req, 'success', `The pinned host key of ${fields.host ?? ''} is forgotten: the next contact pins whatever the server presents.`);
      seeOther(res, `/projects/${slug}#ssh-keys`);
    } catch (error) {
      const why = refusal(error);
      res.status(why.status);
      await showDetail(req, res, { hostKeys: { error: why.message } });
    }
  });

  route(router, 'POST', '/projects/:slug/repo/verify', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    let verification: RepoVerifyOut;
    try {
      verification = await ctx.controlPlane.verifyRepository(actorOf(res).user_id, slug);
    } catch (error) {
      const why = refusal(error);
      res.status(why.status);
      return showDetail(req, res, { verify: { error: why.message } });
    }
    await showDetail(req, res, {}, { verification, verifyStatusWords: VERIFY_STATUS_WORDS });
  });
}
