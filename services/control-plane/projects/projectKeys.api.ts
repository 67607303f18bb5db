import type { Request, Response, Router } from 'express';
import { getProject } from '#projections/projects/projectDetail.ts';
import { projectHostKeys, projectSshKeys } from '#projections/sshKeys/sshKeys.ts';
import { HttpError } from '#shared/http/errors.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody, validateSlug } from '../http/validate.ts';
import { validateKeyId } from '../sshKeys/sshKey.api.ts';
import { commandMetadata } from './project.api.ts';

const KEY_READ_MODELS = ['ssh_keys'] as const;

/** ProjectKeysOut: the project's keys (a key deleted from the keyring says so) and its pinned host keys. */
async function projectKeysOut(ctx: ControlPlaneContext, slug: string) {
  if (!(await getProject(ctx.readModel, slug))) throw new HttpError(404, `no project ${slug}`);
  const [keys, hosts] = await Promise.all([projectSshKeys(ctx.readModel, slug), projectHostKeys(ctx.readModel, slug)]);
  return {
    slug,
    keys: keys.map((key) => ({ id: key.key_id, name: key.name, fingerprint: key.fingerprint, public_key: key.key_deleted_at ? null : key.public_key, deleted: key.key_deleted_at !== null })),
    host_keys: hosts.map((host) => ({ host: host.host, port: host.port, pinned_at: host.pinned_at.toISOString(), keys: host.keys.map((key) => ({ type: key.keyType, fingerprint: key.fingerprint })) })),
  };
}

type Handler = (ctx: ControlPlaneContext, req: Request, res: Response) => Promise<unknown>;

const addKey: Handler = async (ctx, req, res) => {
  const slug = String(req.params['slug']);
  const result = await ctx.projectKeys.addKey(slug, (req.body as { key_id: number }).key_id, commandMetadata(req, actingUser(res.locals)));
  await ctx.waitForProjections(result.lastGlobalPosition, KEY_READ_MODELS);
  res.json(await projectKeysOut(ctx, slug));
};

const removeKey: Handler = async (ctx, req, res) => {
  const slug = String(req.params['slug']);
  const result = await ctx.projectKeys.removeKey(slug, Number(req.params['key_id']), commandMetadata(req, actingUser(res.locals)));
  await ctx.waitForProjections(result.lastGlobalPosition, KEY_READ_MODELS);
  res.json(await projectKeysOut(ctx, slug));
};

const forgetHostKey: Handler = async (ctx, req, res) => {
  const slug = String(req.params['slug']);
  const { host, port = 22 } = req.body as { host: string; port?: number };
  const result = await ctx.projectKeys.forgetHostKey(slug, host, port, commandMetadata(req, actingUser(res.locals)));
  await ctx.waitForProjections(result.lastGlobalPosition, KEY_READ_MODELS);
  res.json(await projectKeysOut(ctx, slug));
};

const verify: Handler = async (ctx, req, res) => {
  const slug = String(req.params['slug']);
  if (!(await getProject(ctx.readModel, slug))) throw new HttpError(404, `no project ${slug}`);
  const result = await ctx.projectKeys.verify(slug, commandMetadata(req, actingUser(res.locals)));
  res.json({ ok: result.ok, repositories: result.repositories, keys: result.keys, deleted_keys: result.deletedKeys });
};

/** A project's SSH keys, host keys and repository verification: `/api/v1/projects/{slug}/…` and web's `/internal/projects/{slug}/…`. */
export function projectKeysApi(router: Router, ctx: ControlPlaneContext): void {
  const with_ = (handler: Handler) => (req: Request, res: Response) => handler(ctx, req, res);
  route(router, ctx, 'GET', '/api/v1/projects/:slug/ssh-keys', validateSlug, async (req: Request, res: Response) => {
    res.json(await projectKeysOut(ctx, String(req.params['slug'])));
  });
  route(router, ctx, 'POST', '/api/v1/projects/:slug/ssh-keys', validateSlug, validateBody('api/ProjectSshKeyAdd.v1.json'), with_(addKey));
  route(router, ctx, 'DELETE', '/api/v1/projects/:slug/ssh-keys/:key_id', validateSlug, validateKeyId, with_(removeKey));
  route(router, ctx, 'POST', '/api/v1/projects/:slug/repo/verify', validateSlug, with_(verify));
  route(router, ctx, 'POST', '/api/v1/projects/:slug/host-keys/forget', validateSlug, validateBody('api/HostKeyForget.v1.json'), with_(forgetHostKey));
  route(router, ctx, 'POST', '/internal/projects/:slug/ssh-keys/add', validateSlug, validateBody('api/ProjectSshKeyAdd.v1.json'), with_(addKey));
  route(router, ctx, 'POST', '/internal/projects/:slug/ssh-keys/:key_id/remove', validateSlug, validateKeyId, with_(removeKey));
  route(router, ctx, 'POST', '/internal/projects/:slug/repo/verify', validateSlug, with_(verify));
  route(router, ctx, 'POST', '/internal/projects/:slug/host-keys/forget', validateSlug, validateBody('api/HostKeyForget.v1.json'), with_(forgetHostKey));
}
