import type { Request, Response, Router } from 'express';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import type { WebContext } from '../context.ts';
import { jobFlash, render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { CONTROL_CHARACTER, createBody, errorsByField, FORM_CHOICES, FORM_DEFAULTS, formInput, projectChoices, projectNamed, refusalOf, type InstanceFormInput } from './instanceForm.ts';
import { backupIdOf, backupInput, backupNamed } from './instanceFormBackup.ts';
import { actorOf, queryString, withQuery } from './instanceRequest.ts';

/** The form's page, or (for htmx asking as the project field changes) the line saying which repository it inherits. */
async function showForm(ctx: WebContext, req: Request, res: Response, input: InstanceFormInput, errors: Record<string, string> = {}, partial?: string) {
  const cloneFrom = input.clone_from.trim();
  const [project, source, backup] = await Promise.all([
    projectNamed(ctx, input.project),
    cloneFrom && !CONTROL_CHARACTER.test(cloneFrom) ? getInstance(ctx.readModel, cloneFrom) : undefined,
    backupNamed(ctx, input),
  ]);
  if (input.clone_from && !source && !errors['clone_from']) errors['clone_from'] = `there is no instance ${input.clone_from} to copy from`;
  if (typeof backup === 'string' && !errors['from_backup']) errors['from_backup'] = backup;
  const projects = partial && req.get('hx-request') === 'true' ? [] : await projectChoices(ctx);
  render(ctx, req, res, 'instances/new.njk', { input, errors, project, source, backup: typeof backup === 'string' ? undefined : backup, projects, choices: FORM_CHOICES }, partial);
}

/** A new form: `project` preselected, and everything but the name taken from `clone_from`'s instance or from `from_backup`'s migration artifact. */
async function newInput(ctx: WebContext, req: Request): Promise<InstanceFormInput> {
  const input = { ...FORM_DEFAULTS, project: queryString(req, 'project'), clone_from: queryString(req, 'clone_from'), from_backup: queryString(req, 'from_backup'), from_migration: queryString(req, 'from_migration') };
  const backup = await backupNamed(ctx, input);
  if (backup && typeof backup !== 'string') return backupInput(input, backup);
  const source = input.clone_from ? await getInstance(ctx.readModel, input.clone_from) : undefined;
  if (!source) return input;
  return {
    ...input,
    project: input.project || source.project,
    erp_version: source.erp_version,
    edition: source.edition,
    modules: source.modules.join(' '),
    branch: source.branch,
    name: `${source.name} copy`,
  };
}

/** Where a refused form says it is: its own address with the source it was opened for. */
const formUrl = (input: InstanceFormInput) => withQuery('/instances/new', { project: input.project, clone_from: input.clone_from, from_backup: input.from_backup, from_migration: input.from_migration });

export function instanceFormRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/instances/new', async (req: Request, res: Response) => {
    const error = queryString(req, 'error');
    await showForm(ctx, req, res, await newInput(ctx, req), error ? { _form: error } : {}, 'instances/_projectRepo.njk');
  });

  route(router, 'POST', '/instances', async (req: Request, res: Response) => {
    const input = formInput((req.body ?? {}) as Record<string, unknown>);
    const body = createBody(input);
    if (backupIdOf(input.from_backup) === 'invalid') {
      // Nothing to send: showForm says why at the field.
      res.status(422).set('HX-Push-Url', formUrl(input));
      return showForm(ctx, req, res, input);
    }
    try {
      const created = await ctx.controlPlane.createInstance(actorOf(res).user_id, body);
      jobFlash(req, `Instance ${created.name} requested: it is queued for provisioning.`);
      seeOther(res, `/instances/${created.slug}`);
    } catch (error) {
      const refusal = refusalOf(error);
      res.status(422);
      // The form posts to /instances, which is the list when reloaded: show the form's own address.
      res.set('HX-Push-Url', formUrl(input));
      await showForm(ctx, req, res, input, errorsByField(refusal, body));
    }
  });
}
