import { fileURLToPath } from 'node:url';
import type { MigrationStep } from '../migrationStepContext.ts';
import type { Engine } from '#services/migrations/domain/migration.ts';
import { backup } from './backup.ts';
import { check } from './check.ts';
import { disk } from './disk.ts';
import { dump } from './dump.ts';
import { erp } from './erp.ts';
import { fetch } from './fetch.ts';
import { filestore } from './filestore.ts';
import { filestoreArchive } from './filestoreArchive.ts';
import { gate } from './gate.ts';
import { instance } from './instance.ts';
import { modules } from './modules.ts';
import { report } from './report.ts';
import { restore } from './restore.ts';
import { sql } from './sql.ts';
import { uninstall } from './uninstall.ts';
import { upgradeServiceStep, type UpgradeServiceSettings } from './upgradeServiceStep.ts';

/** Migration steps by recipe kind: the registry the migration host runs plans with. */
export function migrationSteps(upgradeService: UpgradeServiceSettings): Readonly<Record<string, MigrationStep>> {
  return {
    check,
    modules,
    filestore,
    disk,
    fetch,
    restore,
    sql,
    uninstall,
    erp,
    upgrade_service: upgradeServiceStep(upgradeService),
    gate,
    backup,
    dump,
    filestore_archive: filestoreArchive,
    instance,
    report,
  };
}

/** The ERP stand-in's own upgrade scripts, one folder per destination version. */
const STANDIN_UPGRADES = fileURLToPath(new URL('../../../erp-standin/upgrades/', import.meta.url));

/** Where `${paths.upgrade}` points, per engine, `{version}` replaced: OpenUpgrade's scripts, and the vendor's upgrade-util for enterprise hops. */
export interface UpgradePathTemplates {
  /** FORJA_UPGRADE_PATH, or FORJA_OPENUPGRADE_PATH's openupgrade_scripts/scripts. */
  openupgrade?: string | undefined;
  /** FORJA_UPGRADE_UTIL_PATH: odoo/upgrade-util's `src`, which the custom modules' local update after the platform's upgrade runs with. */
  upgradeUtil?: string | undefined;
}

/**
 * `${paths.upgrade}` for the ERP of a version in a hop of `engine`: an enterprise hop
 * (`upgrade-service`) never gets OpenUpgrade's scripts, nor an OpenUpgrade hop upgrade-util; a
 * path left unset is the stand-in's own scripts.
 */
export const upgradePathFor =
  (templates: UpgradePathTemplates | string | undefined) =>
  (version: string, engine: Engine = 'openupgrade'): string => {
    const known = typeof templates === 'object' ? templates : { openupgrade: templates };
    const template = engine === 'upgrade-service' ? known.upgradeUtil : known.openupgrade;
    return template ? template.replaceAll('{version}', version) : `${STANDIN_UPGRADES}${version}`;
  };
