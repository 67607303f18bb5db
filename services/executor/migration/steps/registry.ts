import { fileURLToPath } from 'node:url';
import type { MigrationStep } from '../migrationStepContext.ts';
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

/** `${paths.upgrade}` for the ERP of a version: FORJA_UPGRADE_PATH with `{version}` replaced, or the stand-in's scripts. */
export const upgradePathFor =
  (template: string | undefined) =>
  (version: string): string =>
    template ? template.replaceAll('{version}', version) : `${STANDIN_UPGRADES}${version}`;
