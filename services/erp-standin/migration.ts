import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { migrationScripts, type Stage } from './upgradePath.ts';
import { compareVersions } from './version.ts';

type Log = (level: string, logger: string, message: string) => void;

/** A migration that stopped: refused before it began, or a script that failed. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export interface ModuleToMigrate {
  name: string;
  /** Its `latest_version` in the database. */
  installed: string;
  /** Its version on this server, or undefined when the server cannot find it (not installable). */
  target: string | undefined;
}

export interface MigrationPlan {
  from: string;
  to: string;
  /** Absolute upgrade-path folders. */
  paths: readonly string[];
  /** In the order they migrate (base first). */
  modules: readonly ModuleToMigrate[];
}

/** How the real ERP's migration manager shows a script's version in its log. */
const STAGE_FORMAT: Record<Stage, (version: string) => string> = { pre: (v) => `[>${v}]`, post: (v) => `[${v}>]`, end: (v) => `[$${v}]` };

/**
 * Migrates module by module, as OpenUpgrade does: each module's `pre-` scripts, its version bump
 * and its `post-` scripts commit together, so a failing script leaves the modules before it
 * migrated and itself and the ones after it at their old version (exit ≠ 0). A module already at
 * its target is not migrated again. `end-` scripts run after every module, for the modules this run
 * migrated, each module's in its own transaction.
 */
export async function migrateModules(client: pg.Client, plan: MigrationPlan, log: Log): Promise<void> {
  const started = Date.now();
  log('INFO', 'odoo.modules.migration', `migrating ${plan.modules.length} modules from ${plan.from} to ${plan.to} (upgrade path ${plan.paths.join(',')})`);
  const migrated: Array<ModuleToMigrate & { target: string }> = [];
  for (const module of plan.modules) {
    const { name, installed, target } = module;
    if (target === undefined) {
      log('WARNING', 'odoo.modules.loading', `module ${name}: not installable, skipped`);
    } else if (compareVersions(installed, target) >= 0) {
      log('INFO', 'odoo.modules.loading', `module ${name}: already at ${installed}, not migrated again`);
    } else {
      const step = { name, installed, target };
      await inTransaction(client, async () => {
        await runStage(client, plan, step, 'pre', log);
        await client.query(`update ir_module_module set latest_version = $2, write_date = now() at time zone 'utc' where name = $1`, [name, target]);
        await runStage(client, plan, step, 'post', log);
      }).catch((error: unknown) => {
        log('ERROR', 'odoo.modules.migration', `module ${name}: rolled back, it stays at ${installed}`);
        throw error;
      });
      log('INFO', 'odoo.modules.loading', `module ${name}: migrated from ${installed} to ${target}`);
      migrated.push(step);
    }
  }
  for (const module of migrated) await inTransaction(client, () => runStage(client, plan, module, 'end', log));
  log('INFO', 'odoo.modules.migration', `${migrated.length} modules migrated to ${plan.to} in ${((Date.now() - started) / 1000).toFixed(2)}s`);
}

async function runStage(client: pg.Client, plan: MigrationPlan, module: ModuleToMigrate & { target: string }, stage: Stage, log: Log): Promise<void> {
  for (const script of migrationScripts(plan.paths, plan.to, module.name, module.installed, module.target, stage)) {
    log('INFO', 'odoo.modules.migration', `module ${module.name}: Running migration ${STAGE_FORMAT[stage](script.version)} ${script.name}`);
    try {
      await client.query(readFileSync(script.file, 'utf8'));
    } catch (error) {
      log('ERROR', 'odoo.sql_db', `bad query: ${script.file}\nERROR: ${(error as Error).message}`);
      throw new MigrationError(`module ${module.name}: ${script.name} (${script.file}) failed: ${(error as Error).message}`);
    }
  }
}

async function inTransaction(client: pg.Client, work: () => Promise<void>): Promise<void> {
  await client.query('begin');
  try {
    await work();
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}
