import { join } from 'node:path';
import { lstatBeneath } from '#shared/fs/beneath.ts';
import { done, fail } from '#shared/workflow/stepOutcome.ts';
import { throwIfAborted } from '../../abortError.ts';
import { safeEntryPath } from '../../database/safeEntryPath.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { numberParam } from './stepParams.ts';

/** Attachments read per query, and files looked up at once. */
const PAGE = 5_000;
const PARALLEL = 32;
/** How many missing files a message names. */
const NAMED = 10;

/**
 * The filestore must be in place before the upgrade (OCA/OpenUpgrade#983): every attachment kept
 * as a file (`ir_attachment.store_fname`, `ab/abcdef…`) is looked up under
 * `paths.filestore/<working database>/`. More than `params.maxMissing` missing files fail the step,
 * naming the first ones; fewer are listed in the facts' `warnings`. A `store_fname` that would lead
 * out of the filestore counts as missing and is never looked up.
 */
export const filestore: MigrationStep = async (context) => {
  const { step } = context;
  const maxMissing = numberParam(step, 'maxMissing', 0);
  const work = context.migration.workingDatabase;
  const root = join(context.paths.filestore, work);
  const missing: string[] = [];
  let files = 0;
  for (let after = ''; ; ) {
    throwIfAborted(context.signal, `checking the filestore of ${work}`);
    const page = await context.databases.query<{ fname: string }>(
      work,
      'select distinct store_fname as fname from ir_attachment where store_fname is not null and store_fname > $1 order by store_fname limit $2',
      [after, PAGE],
      { readOnly: true },
    );
    for (let start = 0; start < page.length; start += PARALLEL) {
      const batch = page.slice(start, start + PARALLEL).map((row) => row.fname);
      const found = await Promise.all(batch.map((fname) => present(root, fname)));
      batch.forEach((fname, index) => {
        if (!found[index]) missing.push(fname);
      });
    }
    files += page.length;
    const last = page.at(-1);
    if (last === undefined || page.length < PAGE) break;
    after = last.fname;
  }
  const listed = `${missing.slice(0, NAMED).join(', ')}${missing.length > NAMED ? ` and ${missing.length - NAMED} more` : ''}`;
  const summary = `filestore ${step.id}: ${missing.length} of ${files} attachment file(s) missing under ${root}`;
  if (missing.length > maxMissing) return fail(`${summary} (at most ${maxMissing} allowed): ${listed}`, { retryable: false });
  await context.log(missing.length > 0 ? `${summary}: ${listed}` : `filestore ${step.id}: all ${files} attachment file(s) present under ${root}`);
  return done({ files, missing: missing.length, ...(missing.length > 0 ? { warnings: [`${summary}: ${listed}`] } : {}) });
};

async function present(root: string, fname: string): Promise<boolean> {
  const path = safeEntryPath(fname);
  if ('refused' in path || path.parts.length === 0) return false;
  // The filestore is the migration ERP's to write: looked up without following a link it left there (a link is no attachment).
  try {
    return lstatBeneath(root, path.parts.join('/'))?.isFile() === true;
  } catch {
    return false;
  }
}
