import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ReadinessOut } from '../controlPlaneClient.ts';
import { migrationWorkingInstances } from '#projections/instances/migrationWorkingInstances.ts';
import { getMigration, migrationActionViewOf, type MigrationDetailRow } from '#projections/erpMigrations/migrationDetail.ts';
import { getRun, runSteps, runsOf } from '#projections/erpMigrations/migrationRuns.ts';
import { notOffered, offeredMigrationActions } from '#services/migrations/domain/migrationActions.ts';
import { roleAtLeast } from '#shared/auth/roles.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { render, wantsPartial } from '../http/render.ts';
import { actorOf, queryString } from '../instances/instanceRequest.ts';
import { artifactsOf } from './migrationArtifacts.ts';
import { codeText, FORM_CHOICES } from './migrationForm.ts';
import { isLive, progressText, runView, STATUS_TONE, stepViews, when } from './migrationView.ts';
import { formatBytes } from '#shared/formatBytes.ts';

/** A refused form on the page: what was typed and why it was refused. */
export interface PageForm {
  values?: Record<string, string>;
  errors?: Record<string, string>;
}

export async function migrationOr404(ctx: WebContext, slug: string): Promise<MigrationDetailRow> {
  const migration = await getMigration(ctx.readModel, slug);
  if (!migration) throw new HttpError(404, `There is no migration ${slug}. It may have been deleted.`);
  return migration;
}

/** `:number` of the path: a run number, else no page. */
export function runNumberOf(req: Request): number {
  const raw = String(req.params['number']);
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new HttpError(404, `There is no run ${raw.slice(0, 20)}.`);
  return Number(raw);
}

/** A short digest of what the live region says: the polling request carries it, and only a changed sentence is sent to be read out. */
const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 10);

/**
 * The answer to a polling request of a steps block: the block again, the sentence for the live
 * region when it changed, and a reload of the whole page when the status it was rendered for has
 * changed (the actions and forms outside the block follow the status).
 */
function pollingState(req: Request, res: Response, status: string, sentence: string) {
  const shown = queryString(req, 'shown');
  if (wantsPartial(req) && shown !== '' && shown !== status) res.set('HX-Refresh', 'true');
  return { said: digest(sentence), announce: wantsPartial(req) && queryString(req, 'said') !== digest(sentence) };
}

/** The report with each hop's modules that block or warn first, for the table above the fold. */
const readinessView = (readiness: ReadinessOut) => ({ ...readiness, hops: readiness.hops.map((hop) => ({ ...hop, flagged: hop.modules.filter((module) => module.verdict !== 'ok') })) });

/**
 * The migration's page, or the last run's steps block alone for the block's polling. `forms` holds
 * a refused form (its input and errors) when the page is re-rendered in answer to one.
 */
export async function showMigration(ctx: WebContext, req: Request, res: Response, forms: Record<string, PageForm> = {}): Promise<void> {
  const slug = String(req.params['slug']);
  const migration = await migrationOr404(ctx, slug);
  const runs = await runsOf(ctx.readModel, slug);
  const last = migration.last_run_number === null ? undefined : runs.find((run) => run.number === migration.last_run_number);
  const steps = stepViews(last ? await runSteps(ctx.readModel, last.job_id) : [], new Date());
  const progress = progressText(last, steps);
  const polling = pollingState(req, res, migration.status, progress);
  const canOperate = roleAtLeast(actorOf(res).role, 'developer');
  const actionView = migrationActionViewOf(migration);
  const actions = canOperate ? offeredMigrationActions(actionView) : [];
  // Why a migrated migration shows no Run button, said where the button would be.
  const runNote = canOperate ? notOffered('run', actionView) : null;
  // A refused form re-renders the page at the form's URL; htmx would push that URL, which has no GET.
  if (Object.keys(forms).length > 0) res.set('HX-Push-Url', `/migrations/${slug}`);
  const data = {
    migration,
    tone: STATUS_TONE[migration.status],
    live: isLive(migration.status),
    progress,
    polling,
    pollUrl: `/migrations/${slug}`,
    shown: migration.status,
    last: last ? runView(last) : undefined,
    steps,
    gate: migration.status === 'waiting' ? steps.find((step) => step.status === 'waiting') : undefined,
    runs: runs.map(runView),
    workingInstances: await migrationWorkingInstances(ctx.readModel, slug),
    artifacts: wantsPartial(req) ? [] : await artifactsOf(ctx.readModel, slug, runs),
    recipeKeys: migration.recipe_key.split('+'),
    inputSize: migration.input.bytes === null ? '' : formatBytes(migration.input.bytes),
    created: when(migration.created_at),
    canOperate,
    actions: actions.filter((action) => action !== 'delete'),
    canDelete: actions.includes('delete'),
    runNote,
    // Only on the whole page: the polled block does not show it.
    readiness: wantsPartial(req) ? null : readinessView(await ctx.controlPlane.migrationReadiness(actorOf(res).user_id, slug)),
    editable: migration.status === 'draft' ? ['origin', 'destination', 'flavor', 'engine', 'purpose', 'contract', 'notify_to', 'project', 'code'] : ['contract', 'notify_to'],
    codeLines: codeText(migration.code),
    choices: FORM_CHOICES,
    forms,
  };
  render(ctx, req, res, 'migrations/detail.njk', data, 'migrations/_steps.njk');
}

/** A run's page, or its steps block alone for the block's polling. */
export async function showRun(ctx: WebContext, req: Request, res: Response): Promise<void> {
  const slug = String(req.params['slug']);
  const number = runNumberOf(req);
  const migration = await migrationOr404(ctx, slug);
  const run = await getRun(ctx.readModel, slug, number);
  if (!run) throw new HttpError(404, `Migration ${slug} has no run ${number}. Stopping a migration drops its runs.`);
  const steps = stepViews(await runSteps(ctx.readModel, run.job_id), new Date());
  const progress = progressText(run, steps);
  render(
    ctx,
    req,
    res,
    'migrations/run.njk',
    {
      migration,
      run: runView(run),
      workingInstances: (await migrationWorkingInstances(ctx.readModel, slug)).filter((instance) => instance.run === number),
      steps,
      progress,
      polling: pollingState(req, res, run.status, progress),
      pollUrl: `/migrations/${slug}/runs/${number}`,
      shown: run.status,
      live: isLive(run.status),
      artifacts: wantsPartial(req) ? [] : await artifactsOf(ctx.readModel, slug, [run]),
      canOperate: roleAtLeast(actorOf(res).role, 'developer'),
    },
    'migrations/_steps.njk',
  );
}
