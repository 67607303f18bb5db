import { behaviours, prepareInstance } from './erpCheck/behaviours.ts';
import { CheckConfigError, openCheckEnvironment, runCleanup, type Cleanup } from './erpCheck/checkEnvironment.ts';
import { parseErpCheckArgs, USAGE, UsageError, type ErpCheckArgs } from './erpCheck/erpCheckArgs.ts';
import { runBounded, verdictLine, type Verdict } from './erpCheck/runBehaviour.ts';

/**
 * `npm run erp:check -- --version 17.0 [--command "PYTHON ODOO-BIN" | --image odoo:17.0]`: runs the
 * behaviours of the ERP Forja depends on (behaviours.ts) against a throwaway instance and database,
 * through Forja's own runtime code, and prints one line per behaviour and a summary. Exit 0 when
 * all pass, 1 when one fails (or the setup or the cleanup does), 2 on a wrong command line,
 * setting, command or image, 130 when interrupted. Everything it made is removed in every case.
 */
const out = (line: string) => process.stdout.write(`${line}\n`);

async function check(args: ErpCheckArgs, interrupt: AbortSignal): Promise<number> {
  const cleanup: Cleanup = [];
  let failed = 0;
  let passed = 0;
  let skipped = 0;
  const report = (name: string, verdict: Verdict) => {
    out(verdictLine(name, verdict));
    if (verdict.kind === 'pass') passed++;
    else if (verdict.kind === 'fail') failed++;
    else skipped++;
  };
  try {
    const env = await openCheckEnvironment(args, cleanup);
    out(`erp:check: ERP ${args.erpVersion}, throwaway instance ${env.spec.slug} (database ${env.spec.database}), on ${env.describe}`);
    let spec = env.spec;
    const setup = await runBounded(async (signal) => void (spec = await prepareInstance(env, signal)), args.timeoutMs, interrupt);
    if (setup.kind !== 'pass') {
      report('setup (checkout with submodules, addons path, database, build)', setup);
      if (env.dbLog().trim() !== '') process.stderr.write(`database log:\n${env.dbLog()}`);
    } else {
      out(`addons path: ${spec.addonsPath.length > 0 ? spec.addonsPath.join(',') : "the ERP's default"}`);
      for (const behaviour of behaviours(env, spec, args.timeoutMs)) {
        if (interrupt.aborted) break;
        report(behaviour.name, behaviour.skip === undefined ? await runBounded(behaviour.run, args.timeoutMs, interrupt) : { kind: 'skip', reason: behaviour.skip });
      }
    }
  } catch (error) {
    if (error instanceof CheckConfigError) {
      process.stderr.write(`erp:check: ${error.message}\n`);
      await cleanUp(cleanup);
      return 2;
    }
    report('setup', { kind: 'fail', reason: (error as Error).message });
  }
  const cleanupFailed = await cleanUp(cleanup);
  out(`summary: ${passed} passed, ${failed} failed, ${skipped} skipped (ERP ${args.erpVersion}, ${args.image ? `image ${args.image}` : args.command ? `command ${args.command}` : "Forja's ERP stand-in"})${interrupt.aborted ? '; interrupted' : ''}`);
  if (interrupt.aborted) return 130;
  return failed > 0 || cleanupFailed ? 1 : 0;
}

async function cleanUp(cleanup: Cleanup): Promise<boolean> {
  const failures = await runCleanup(cleanup);
  for (const failure of failures) process.stderr.write(`erp:check: cleanup: could not ${failure}\n`);
  return failures.length > 0;
}

async function main(argv: string[]): Promise<number> {
  let args: ErpCheckArgs;
  try {
    args = parseErpCheckArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`erp:check: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  // A reader that went away (a closed pipe) must not end the run before its cleanup.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) {
      process.stderr.write(`erp:check: ${signal} again: leaving without finishing the cleanup (the throwaway instance is erpcheck-…, its database forja_erpcheck_…)\n`);
      process.exit(130);
    }
    process.stderr.write(`erp:check: ${signal}: stopping and cleaning up (again to leave at once)\n`);
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await check(args, interrupt.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

process.exitCode = await main(process.argv.slice(2));
