import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { STANDIN_OPENUPGRADE, STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { checkoutAddons, DEFAULT_SCAN_LIMITS, type ScanLimits } from './checkoutAddons.ts';

/**
 * The ERP's addons path, built as Odoo.sh builds it (odoo/documentation,
 * content/administration/odoo_sh/advanced/containers.rst and submodules.rst): the ERP's standard
 * addons, the enterprise addons for the enterprise edition, then every folder of the instance's
 * repository and its submodules that holds modules (checkoutAddons.ts). The whole list is given,
 * never left to the ERP's default: on 16.0 and 17.0 an addons path replaces the default, so the
 * standard apps (web, sale…) would vanish (odoo/tools/config.py, `_check_addons_path` and the
 * `addons_path` default).
 */

/** The executor settings this reads (executor.settings.ts). */
export interface AddonsSettings {
  /** Comma-separated folders of the ERP's standard addons, `{version}` replaced. */
  FORJA_ERP_ADDONS?: string | undefined;
  /** The enterprise addons folder, `{version}` replaced. */
  FORJA_ERP_ENTERPRISE_ADDONS?: string | undefined;
  /** OpenUpgrade's checkout of a version (its root holds openupgrade_framework and openupgrade_scripts), `{version}` replaced. */
  FORJA_OPENUPGRADE_PATH?: string | undefined;
}

export interface AddonsPathRequest {
  erpVersion: string;
  edition: string;
  /** The checkout root; null when the instance has no repository (or for a migration). */
  checkoutDir: string | null;
  /** The ERP is Forja's stand-in: its standard addons are the default. */
  standin: boolean;
  settings: AddonsSettings;
  limits?: ScanLimits;
}

/** A setting that cannot give this version a folder: fails the step that needs the path, naming the setting. */
export class AddonsPathError extends Error {
  override readonly name = 'AddonsPathError';
}

/** Versions end up in a path: one plain path segment. */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z._+-]{0,31}$/;

function folderOf(setting: string, template: string, erpVersion: string): string {
  if (!VERSION.test(erpVersion)) throw new AddonsPathError(`${setting}: ${JSON.stringify(erpVersion)} is not an ERP version`);
  const folder = template.trim().replaceAll('{version}', erpVersion);
  if (!isAbsolute(folder)) throw new AddonsPathError(`${setting}: ${folder} (ERP version ${erpVersion}) is not an absolute path`);
  if (/[,\r\n]/.test(folder)) throw new AddonsPathError(`${setting}: ${JSON.stringify(folder)} has a comma or a line break, which the ERP's addons_path cannot hold`);
  if (statSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true) throw new AddonsPathError(`${setting}: ${folder} (ERP version ${erpVersion}) is not a folder`);
  return resolve(folder);
}

/**
 * The standard addons folders of `erpVersion`: FORJA_ERP_ADDONS; unset, the stand-in's own when
 * the ERP is the stand-in, else none (the ERP's default then holds them: a packaged Odoo keeps
 * every standard module in odoo/addons, which the ERP always adds back).
 */
export function standardAddons(settings: AddonsSettings, erpVersion: string, standin: boolean): string[] {
  if (settings.FORJA_ERP_ADDONS === undefined) return standin ? [STANDIN_STANDARD_ADDONS] : [];
  return settings.FORJA_ERP_ADDONS.split(',')
    .filter((item) => item.trim() !== '')
    .map((item) => folderOf('FORJA_ERP_ADDONS', item, erpVersion));
}

/** The enterprise addons folder of `erpVersion`; throws, naming the setting, when it has none. */
export function enterpriseAddons(settings: AddonsSettings, erpVersion: string): string {
  if (settings.FORJA_ERP_ENTERPRISE_ADDONS === undefined) {
    throw new AddonsPathError(`the enterprise edition needs the enterprise addons of ERP version ${erpVersion}: set FORJA_ERP_ENTERPRISE_ADDONS to their folder ({version} is replaced, e.g. /opt/odoo/{version}/enterprise)`);
  }
  return folderOf('FORJA_ERP_ENTERPRISE_ADDONS', settings.FORJA_ERP_ENTERPRISE_ADDONS, erpVersion);
}

/**
 * OpenUpgrade's folder for an OpenUpgrade hop to `erpVersion` (OCA OpenUpgrade's docsource/040_run_migration.rst: openupgrade_framework
 * and openupgrade_scripts on the destination's addons path): FORJA_OPENUPGRADE_PATH; unset, the
 * stand-in's imitation when the ERP is the stand-in, else a failure naming the setting (the real
 * ERP would only log that it cannot load openupgrade_framework and migrate nothing).
 */
export function openUpgradeAddons(settings: AddonsSettings, erpVersion: string, standin: boolean): string[] {
  if (settings.FORJA_OPENUPGRADE_PATH !== undefined) return [folderOf('FORJA_OPENUPGRADE_PATH', settings.FORJA_OPENUPGRADE_PATH, erpVersion)];
  if (standin) return [STANDIN_OPENUPGRADE];
  throw new AddonsPathError(`an OpenUpgrade hop to ${erpVersion} needs OCA OpenUpgrade's ${erpVersion} branch: set FORJA_OPENUPGRADE_PATH to its checkout ({version} is replaced, e.g. /opt/openupgrade/{version})`);
}

/** What a migration hop's ERP is given, besides what an instance of that version gets. */
export interface HopAddonsRequest {
  erpVersion: string;
  /** The migration's flavor: `enterprise` puts the enterprise addons on the path, as for an instance. */
  edition: string;
  engine: 'openupgrade' | 'upgrade-service';
  standin: boolean;
  settings: AddonsSettings;
  /** The customer's module folders of this hop (checkoutAddons of its checkout), when the migration names code. */
  checkoutFolders: readonly string[];
}

/**
 * The addons path of a migration hop's ERP (issue 26): the path an instance of that version and
 * edition gets (standard addons, the enterprise addons for the enterprise flavor, the customer's
 * module folders), with OpenUpgrade's folder after the ERP's own on an OpenUpgrade hop, each
 * folder once. An enterprise hop without FORJA_ERP_ENTERPRISE_ADDONS fails naming it, as an
 * enterprise instance's build does.
 */
export function hopAddonsPath(request: HopAddonsRequest): string[] {
  const { settings, erpVersion, standin } = request;
  return [
    ...new Set([
      ...standardAddons(settings, erpVersion, standin),
      ...(request.edition === 'enterprise' ? [enterpriseAddons(settings, erpVersion)] : []),
      ...(request.engine === 'openupgrade' ? openUpgradeAddons(settings, erpVersion, standin) : []),
      ...request.checkoutFolders,
    ]),
  ];
}

/** Most folders on one path: what the build step's event records (InstanceStepCompleted.v1.json) holds. */
export const MAX_ADDONS_FOLDERS = 1000;

/** The full, ordered addons path (absolute host folders), each folder once, the first place it appears. */
export function addonsPathFor(request: AddonsPathRequest): string[] {
  const { settings, erpVersion } = request;
  const folders = [
    ...standardAddons(settings, erpVersion, request.standin),
    ...(request.edition === 'enterprise' ? [enterpriseAddons(settings, erpVersion)] : []),
    ...(request.checkoutDir ? checkoutAddons(request.checkoutDir, request.limits ?? DEFAULT_SCAN_LIMITS) : []),
  ];
  const path = [...new Set(folders)];
  if (path.length > MAX_ADDONS_FOLDERS) throw new AddonsPathError(`the addons path would have ${path.length} folders holding modules; Forja gives the ERP ${MAX_ADDONS_FOLDERS} at most (move what the ERP does not need into a folder whose name starts with a dot)`);
  return path;
}
