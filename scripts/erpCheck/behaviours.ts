import { freePort } from '#shared/local/freePort.ts';
import { checkoutCommit } from '#shared/git/gitSource.ts';
import { databaseManagerOpen, waitForReady } from '#services/executor/jobs/healthCheck.ts';
import { assertModulesInstalled } from '#services/executor/jobs/moduleCheck.ts';
import { logTail } from '#services/executor/logTail.ts';
import { addonsPathFor } from '#services/executor/runtime/addonsPath.ts';
import { ErpRunError, type ErpRunSpec } from '#services/executor/runtime/runtime.ts';
import type { CheckEnvironment } from './checkEnvironment.ts';
import { CHECK_MODULES, createCheckRepository } from './checkRepository.ts';

/**
 * The behaviours of the ERP Forja depends on (issue 25, docs in the README's "Checking a real
 * Odoo"), each run through the code the executor runs: the runtime's runOnce/start/runCommand with
 * the configuration file it writes (erpConfigFile.ts), the addons path it builds
 * (addonsPath.ts), its module check (moduleCheck.ts) and readiness check (healthCheck.ts).
 */
export interface Behaviour {
  name: string;
  /** Throws, saying what the ERP did instead, when the ERP does not behave; `signal` bounds it. */
  run: (signal: AbortSignal) => Promise<void>;
  /** Why it does not apply to this ERP version; absent: it applies. */
  skip?: string;
}

/** The first series with `odoo-bin neutralize` (odoo/cli/neutralize.py). */
const FIRST_WITH_NEUTRALIZE = 16;

/** What the checked ERP wrote last: a failure's reason, when the runtime's error does not carry it. */
const erpLogTail = (spec: ErpRunSpec, count = 3): string => {
  const lines = logTail(spec.root, spec.logFile, { count });
  return lines.length > 0 ? ` (ERP log: ${lines.map((line) => line.trim().slice(0, 300)).join(' | ')})` : '';
};

const withLastWords = (error: unknown): Error => {
  if (!(error instanceof ErpRunError)) return error as Error;
  const last = error.logTail.filter((line) => line.trim() !== '').slice(-3).map((line) => line.trim().slice(0, 300));
  return new Error(`${error.message}${last.length > 0 && !error.message.includes(last.at(-1)!) ? ` (${last.join(' | ')})` : ''}`);
};

/**
 * What the executor does before an instance's ERP runs: the checkout with its submodules (fetch_code,
 * gitSource.ts), the addons path from it (build, addonsPath.ts), the empty database owned by the
 * instance's role (database step), the runtime's build. Returns the spec with its addons path.
 */
export async function prepareInstance(env: CheckEnvironment, signal: AbortSignal): Promise<ErpRunSpec> {
  const repository = await createCheckRepository(env.tempDir);
  const sourceDir = env.spec.sourceDir!;
  await checkoutCommit(repository.url, repository.branch, repository.head, sourceDir, { access: { fileRoots: [env.tempDir], allowHosts: [] }, signal });
  await env.databases.recreate(env.spec.database);
  await env.runtime.build(env.spec);
  const addonsPath = addonsPathFor({
    erpVersion: env.spec.erpVersion,
    edition: env.spec.edition,
    checkoutDir: sourceDir,
    standin: env.runtime.usesStandin(env.spec.erpVersion),
    settings: { FORJA_ERP_ADDONS: env.settings.FORJA_ERP_ADDONS, FORJA_ERP_ENTERPRISE_ADDONS: env.settings.FORJA_ERP_ENTERPRISE_ADDONS },
  });
  return { ...env.spec, addonsPath };
}

/** The behaviours, in the order they run: each later one relies on the database the earlier ones made. */
export function behaviours(env: CheckEnvironment, spec: ErpRunSpec, timeoutMs: number): Behaviour[] {
  const { runtime, databases } = env;
  const install = (module: string) => async (signal: AbortSignal) => {
    const modules = ['base', module];
    // As install_modules does (steps.ts): one-shot run, then the registry decides (the ERP exits 0 on a module it cannot find).
    await runtime.runOnce(spec, ['-i', modules.join(','), '--stop-after-init'], signal).catch((error: unknown) => {
      throw withLastWords(error);
    });
    await assertModulesInstalled(databases, spec, modules);
  };
  /** The started server's URL, once it was ready. */
  let url: string | undefined;
  const server = async (): Promise<string> => {
    if (url === undefined) throw new Error('not checked: the ERP server never became ready (see readiness)');
    return url;
  };
  const major = Number.parseInt(spec.erpVersion, 10);
  return [
    { name: `install a module from the repository's root (${CHECK_MODULES.root})`, run: install(CHECK_MODULES.root) },
    { name: `install a module from a nested folder (addons/${CHECK_MODULES.addons})`, run: install(CHECK_MODULES.addons) },
    { name: `install a module from a git submodule's nested folder (vendor/oca-tools/web_tools/${CHECK_MODULES.submodule})`, run: install(CHECK_MODULES.submodule) },
    {
      name: 'demo data off (ir_module_module.demo of base)',
      run: async () => {
        const rows = await databases.query<{ demo: boolean | null }>(spec.database, "select demo from ir_module_module where name = 'base'");
        if (rows.length === 0) throw new Error('base is not in ir_module_module: the database was not initialized');
        if (rows[0]!.demo !== false) throw new Error(`base has demo = ${String(rows[0]!.demo)}: the ERP loaded demo data although the configuration file says without_demo = all`);
      },
    },
    {
      name: `readiness: /web/login?db=${spec.database} answers 200 after start`,
      run: async (signal) => {
        const began = Date.now();
        const port = await freePort();
        const geventPort = (spec.server?.workers ?? 0) > 0 ? await freePort() : undefined;
        const started = await runtime.start(spec, port, geventPort);
        // Its own message (the last answer) comes a moment before the behaviour's bound would cut it short.
        const left = Math.max(1_000, timeoutMs - (Date.now() - began) - 1_000);
        await waitForReady(started.url, { database: spec.database, erpVersion: spec.erpVersion }, left, signal).catch((error: unknown) => {
          throw new Error(`${(error as Error).message}${erpLogTail(spec)}`);
        });
        url = started.url;
      },
    },
    {
      name: 'configuration file honoured: the database manager is closed (list_db = False)',
      run: async (signal) => {
        const at = await server();
        if (await databaseManagerOpen(at, signal)) throw new Error(`${at}/web/database/list lists the databases: the ERP did not apply list_db = False from the file Forja gave it with -c`);
      },
    },
    {
      name: `one-shot -u ${CHECK_MODULES.addons} --stop-after-init exits 0`,
      run: async (signal) => {
        await runtime.stop(spec.slug);
        await runtime.runOnce(spec, ['-u', CHECK_MODULES.addons, '--stop-after-init'], signal).catch((error: unknown) => {
          throw withLastWords(error);
        });
        await assertModulesInstalled(databases, spec, [CHECK_MODULES.addons]);
      },
    },
    {
      name: 'neutralize -d DB flags the database (database.is_neutralized)',
      ...(major < FIRST_WITH_NEUTRALIZE ? { skip: `ERP ${spec.erpVersion} has no neutralize command (16.0+): Forja neutralizes with its own SQL` } : {}),
      run: async (signal) => {
        await runtime.runCommand(spec, 'neutralize', [], signal).catch((error: unknown) => {
          throw withLastWords(error);
        });
        const rows = await databases.query<{ value: string }>(spec.database, "select value from ir_config_parameter where key = 'database.is_neutralized'");
        if (rows[0]?.value !== 'true') throw new Error(`neutralize exited 0 but database.is_neutralized is ${rows[0] ? JSON.stringify(rows[0].value) : 'not set'}`);
      },
    },
  ];
}
