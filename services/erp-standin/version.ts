import { UsageError } from './args.ts';

/** What `latest_version` holds when the stand-in plays no particular ERP version (FORJA_STANDIN_VERSION unset). */
export const UNVERSIONED = '1.0';

/**
 * The ERP series the stand-in plays (`16.0`, `17.0`), from FORJA_STANDIN_VERSION, which the
 * runtimes set to the instance's ERP version. Unset, it plays no version, as it did before it
 * could migrate: modules get `latest_version` 1.0 and nothing can be migrated.
 */
export function standinVersion(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.FORJA_STANDIN_VERSION?.trim();
  if (!value) return undefined;
  if (!/^\d{1,3}\.\d{1,2}$/.test(value)) throw new UsageError(`FORJA_STANDIN_VERSION: "${value}" is not an ERP version such as 17.0`);
  return value;
}

/** The real ERP's `adapt_version`: a manifest version gets the series in front unless it starts with it (`1.3` → `17.0.1.3`). */
export function adaptVersion(series: string, version: string): string {
  return version === series || !version.startsWith(`${series}.`) ? `${series}.${version}` : version;
}

/**
 * The real ERP's `convert_version` for a migration folder name: one with more than two dots
 * already holds the series (`17.0.1.3`), a shorter one is a module version of this series
 * (`1.3` → `17.0.1.3`); `0.0.0` stays, it means "on every update".
 */
export function folderVersion(series: string, folder: string): string {
  if (folder === '0.0.0' || folder.split('.').length > 3) return folder;
  return `${series}.${folder}`;
}

/** The series a `latest_version` belongs to (`16.0.1.3` → `16.0`), undefined for an unversioned one such as `1.0`. */
export function seriesOf(latestVersion: string | null): string | undefined {
  const match = /^(\d+)\.(\d+)\.\d/.exec(latestVersion ?? '');
  return match && Number(match[1]) >= 6 ? `${match[1]}.${match[2]}` : undefined;
}

export const majorOf = (series: string): number => Number(series.split('.')[0]);

/** Orders versions part by part, numerically where both parts are numbers (`17.0.1.10` > `17.0.1.9`). */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.');
  const right = b.split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const [x, y] = [left[i], right[i]];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    const order = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (order !== 0) return Math.sign(order);
  }
  return 0;
}
