import type { ErpDatabases } from '../database/erpDatabases.ts';
import type { Neutralized } from '../database/neutralize.ts';
import { ErpRunError } from '../runtime/runtime.ts';
import type { StepEnvironment } from './stepEnvironment.ts';

/** The first ERP series with `odoo-bin neutralize` (odoo/cli/neutralize.py appeared in 16.0). */
const FIRST_WITH_NEUTRALIZE = 16;

/** How odoo/cli/command.py ends on a command it does not have: `sys.exit("Unknown command 'neutralize'")`, exit 1. */
const UNKNOWN_COMMAND = /Unknown command '?neutralize'?/;

const listed = (done: readonly Neutralized[]) => done.map((item) => item.what).join('; ');

/**
 * Neutralizes a copy that is not production, and returns one line for the instance page saying
 * which neutralization ran and what it did.
 *
 * On 16.0+ the ERP's own `odoo-bin neutralize -d DB` runs, with the instance's addons path (the
 * database step comes after fetch_code, so the checked-out modules' `data/neutralize.sql` count:
 * enterprise and custom modules neutralize themselves), then only Forja's own part (its mail
 * catcher, with the instance's mailbox login). Before 16.0, or when the ERP has no such command or
 * it fails (it rolls back: "THE DATABASE IS NOT NEUTRALIZED!"), Forja's own SQL does all of it,
 * and the line says why.
 */
export async function neutralizeCopy(env: StepEnvironment, databases: ErpDatabases): Promise<string> {
  const { slug, erpVersion } = env.instance;
  const target = env.spec.database;
  const major = Number.parseInt(erpVersion, 10);
  let reason: string;
  if (major < FIRST_WITH_NEUTRALIZE) {
    reason = `ERP ${erpVersion} has no neutralize command (16.0+)`;
  } else {
    try {
      await env.runtime.runCommand(env.spec, 'neutralize', [], env.signal);
      const own = await databases.neutralize(target, slug, true);
      const line = `ERP neutralize (16.0+): every installed module's data/neutralize.sql${own.length > 0 ? `; then Forja's own: ${listed(own)}` : ''}`;
      await env.dbLog(`neutralized (not production) by ${line}`);
      return line;
    } catch (error) {
      if (!(error instanceof ErpRunError) || env.signal.aborted) throw error;
      reason = error.logTail.some((line) => UNKNOWN_COMMAND.test(line)) || UNKNOWN_COMMAND.test(error.message) ? 'the ERP has no neutralize command' : `the ERP's neutralize failed: ${error.message}${lastLine(error.logTail)}`;
      await env.dbLog(`the ERP's neutralize did not neutralize ${target}: ${reason}; Forja's SQL neutralizes it instead`);
    }
  }
  const done = await databases.neutralize(target, slug);
  const line = `Forja's SQL (fallback: ${reason}): ${done.length > 0 ? listed(done) : 'nothing to neutralize'}`;
  await env.dbLog(`neutralized (not production) by ${line}`);
  return line;
}

const lastLine = (tail: readonly string[]): string => {
  const line = tail.findLast((entry) => entry.trim() !== '');
  return line ? ` (${line.trim().slice(0, 300)})` : '';
};
