import { readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { UsageError } from './args.ts';
import { compareVersions, folderVersion } from './version.ts';

/**
 * Migration scripts, laid out as OpenUpgrade's `openupgrade_scripts/scripts` and read as the real
 * ERP's migration manager reads them, with SQL files where the real ones are Python:
 *
 *     <upgrade path>/<module>/<version>/pre-*.sql, post-*.sql, end-*.sql
 *
 * `<version>` is the module version the scripts migrate *to*, written in full (`17.0.1.3`, as
 * OpenUpgrade does) or without the series (`1.3`, read as the stand-in's series). A folder runs when
 * installed < version ≤ the module's new version, so a module already at 17.0 runs none of its 17.0
 * scripts again; `0.0.0` runs on every update that changes the version. Folders run in version order,
 * the scripts of a stage in file-name order. Each script is sent as one simple query (several
 * statements are fine) inside the module's transaction.
 */
export type Stage = 'pre' | 'post' | 'end';

const SCRIPT = /^(pre|post|end)-.+\.sql$/;

const entries = (dir: string) => readdirSync(dir, { withFileTypes: true });
const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/**
 * Refuses, as the real ERP's option check does, an upgrade path that is not a folder holding
 * `<module>/<version>/{pre,post,end}-*` scripts. Returns the absolute paths.
 */
export function checkUpgradePath(paths: readonly string[]): string[] {
  return paths.map((path) => {
    const absolute = resolve(path);
    if (!isDirectory(absolute)) throw new UsageError(`option --upgrade-path: the path '${path}' is not a valid upgrade directory (no such directory)`);
    const hasScripts = entries(absolute)
      .filter((module) => module.isDirectory())
      .some((module) =>
        entries(join(absolute, module.name))
          .filter((version) => version.isDirectory())
          .some((version) => entries(join(absolute, module.name, version.name)).some((file) => file.isFile() && SCRIPT.test(file.name))),
      );
    if (!hasScripts) throw new UsageError(`option --upgrade-path: the path '${path}' is not a valid upgrade directory`);
    return absolute;
  });
}

// Code-point order, as the real ERP's `sorted(…, key=os.path.basename)`.
const byFileName = (a: string, b: string) => (basename(a) < basename(b) ? -1 : basename(a) > basename(b) ? 1 : 0);

export interface Script {
  /** The folder's version as the ERP reads it (`17.0.1.3`). */
  version: string;
  /** The file name without `.sql`, as the real ERP logs a script (`pre-migration`). */
  name: string;
  file: string;
}

/** The `stage` scripts that take `module` from `installed` to `target`, in the order they run. */
export function migrationScripts(paths: readonly string[], series: string, module: string, installed: string, target: string, stage: Stage): Script[] {
  const folders = paths.flatMap((path) => {
    const dir = join(path, module);
    if (!isDirectory(dir)) return [];
    return entries(dir)
      .filter((entry) => entry.isDirectory())
      .map((entry) => ({ dir: join(dir, entry.name), folder: entry.name, version: folderVersion(series, entry.name) }));
  });
  const runs = ({ folder, version }: { folder: string; version: string }) =>
    folder === '0.0.0'
      ? compareVersions(installed, target) < 0
      : compareVersions(installed, version) < 0 && compareVersions(version, target) <= 0;
  const versions = [...new Set(folders.filter(runs).map((folder) => folder.version))].sort(compareVersions);
  return versions.flatMap((version) =>
    folders
      .filter((folder) => folder.version === version)
      .flatMap((folder) => entries(folder.dir).filter((file) => file.isFile() && file.name.startsWith(`${stage}-`) && file.name.endsWith('.sql')).map((file) => join(folder.dir, file.name)))
      .sort(byFileName)
      .map((file) => ({ version, name: basename(file, '.sql'), file })),
  );
}
