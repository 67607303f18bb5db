import type pg from 'pg';
import type { StandinOptions } from './args.ts';
import { MigrationError, migrateModules } from './migration.ts';
import { addKnownModules, createModuleRegistry, databaseHasDemo, installedVersions, registeredAmong, setInstalled } from './moduleRegistry.ts';
import { connectSession, ensureDatabase } from './sessions.ts';
import { decideUpgrade, type UpgradeDecision } from './upgradeDecision.ts';
import { adaptVersion, seriesOf, UNVERSIONED } from './version.ts';

type Log = (level: string, logger: string, message: string) => void;

/** What one run of the stand-in works with, besides its command line. */
export interface StandinSetup {
  /** Installable modules with their manifest versions (knownModules.ts). */
  known: ReadonlyMap<string, string>;
  /** The series it plays (FORJA_STANDIN_VERSION), undefined for none. */
  version: string | undefined;
  /** `--upgrade-path`, checked and absolute. */
  upgradePath: readonly string[];
  /** Whether a new database gets demo data (demo.ts); an existing one keeps what base was installed with. */
  demo: boolean;
  /** Throws ExternalDependencyError when a module about to be installed lacks a Python package (pythonDependencies.ts). */
  checkDependencies?: (modules: readonly string[], action: 'install' | 'upgrade') => void;
}

/**
 * The ERP's module registry, as the real ERP keeps it: `ir_module_module` with one row per module
 * it knows, its state and `latest_version` (`17.0.1.3`: the series, then the manifest version).
 * Like the real ERP's "updating modules list", each run first adds the modules it can find as
 * `uninstalled`. Then, as the real one does, `-i`/`-u` names without a row are logged as invalid and
 * ignored (the run still exits 0), `-u` migrates or updates installed modules (`-u all`: every one)
 * and `-i` installs the others. `base` is always installed.
 */
export async function initializeDatabase(options: StandinOptions, setup: StandinSetup, log: Log): Promise<void> {
  const connection = { host: options.dbHost, port: options.dbPort, user: options.dbUser, password: options.dbPassword };
  await ensureDatabase(connection, options.database, log);
  const client = await connectSession({ ...connection, database: options.database });
  try {
    await createModuleRegistry(client);
    const installed = await installedVersions(client);
    const updating = options.update.includes('all') ? [...installed.keys()] : options.update.filter((name) => installed.has(name));
    const decision = decideUpgrade({
      database: options.database,
      server: setup.version,
      series: updating.map((name) => seriesOf(installed.get(name) ?? null)).filter((series) => series !== undefined),
      updating: options.update.length > 0,
      upgradePath: setup.upgradePath,
      load: options.load,
      onPath: (name) => setup.known.has(name),
      targetVersion: process.env.OPENUPGRADE_TARGET_VERSION?.trim() || undefined,
    });
    if (decision.kind === 'refused') throw new MigrationError(decision.message);

    log('INFO', 'odoo.modules.loading', 'updating modules list');
    await addKnownModules(client, ['base', ...setup.known.keys()]);
    const registered = await registeredAmong(client, [...options.install, ...options.update]);
    const invalid = [...new Set([...options.install, ...options.update])].filter((name) => name !== 'all' && !registered.has(name));
    // The real ERP's words, logger and level (odoo/modules/loading.py, _check_module_names).
    if (invalid.length > 0) log('WARNING', 'odoo.modules.loading', `invalid module names, ignored: ${invalid.join(', ')}`);

    setup.checkDependencies?.(updating, 'upgrade');
    const current = (name: string) => (setup.version ? adaptVersion(setup.version, setup.known.get(name) ?? '1.0') : UNVERSIONED);
    await applyDecision(client, decision, { updating, installed, current, installable: (name) => setup.known.has(name), upgradePath: setup.upgradePath }, log);
    const plainRun = decision.kind === 'none';
    // Demo data is decided when the database is created and kept in base's `demo` flag; a module
    // installed later inherits it from its dependencies (odoo/modules/loading.py, `load_modules`;
    // odoo/addons/base/models/ir_module.py, `_state_update`).
    const demo = installed.has('base') ? await databaseHasDemo(client) : setup.demo;
    const installing = ['base', ...options.install.filter((name) => name !== 'base' && registered.has(name))];
    setup.checkDependencies?.(installing.filter((name) => !installed.has(name)), 'install');
    for (const name of installing) {
      // An installed module named by -i is updated, as on the real ERP, but never across versions.
      if (installed.has(name) && !(plainRun && options.install.includes(name))) continue;
      await setInstalled(client, name, current(name), demo);
      if (options.install.includes(name)) log('INFO', 'odoo.modules.loading', `module ${name}: installed`);
    }
    if (plainRun) {
      for (const name of options.update.filter((name) => name !== 'all' && registered.has(name) && !installed.has(name))) {
        log('WARNING', 'odoo.modules.loading', `module ${name}: not installed, nothing to update`);
      }
    }
    const { rows } = await client.query<{ count: number }>(`select count(*)::int as count from ir_module_module where state = 'installed'`);
    log('INFO', 'odoo.modules.loading', `${rows[0]?.count ?? 0} modules loaded`);
  } finally {
    await client.end();
  }
}

interface Updates {
  /** The installed modules `-u` names, in the database's order. */
  updating: readonly string[];
  installed: ReadonlyMap<string, string | null>;
  current: (name: string) => string;
  installable: (name: string) => boolean;
  upgradePath: readonly string[];
}

async function applyDecision(client: pg.Client, decision: UpgradeDecision, updates: Updates, log: Log): Promise<void> {
  switch (decision.kind) {
    case 'refused':
      throw new MigrationError(decision.message);
    case 'not-migrated':
      log(decision.level, 'odoo.modules.migration', decision.message);
      return;
    case 'migrate': {
      if (decision.target) log('INFO', 'odoo.modules.migration', `OpenUpgrade: migrating to ${decision.to}, on the way to ${decision.target} (OPENUPGRADE_TARGET_VERSION)`);
      // Dependency-ish order: base first, then by name.
      const order = [...updates.updating].sort((a, b) => (a === 'base' ? -1 : b === 'base' ? 1 : a < b ? -1 : a > b ? 1 : 0));
      const modules = order.map((name) => ({ name, installed: updates.installed.get(name) ?? '', target: updates.installable(name) ? updates.current(name) : undefined }));
      await migrateModules(client, { from: decision.from, to: decision.to, paths: updates.upgradePath, modules }, log);
      return;
    }
    case 'none':
      for (const name of updates.updating) {
        await setInstalled(client, name, updates.current(name));
        log('INFO', 'odoo.modules.loading', `module ${name}: updated`);
      }
      return;
    default:
      return decision satisfies never;
  }
}
