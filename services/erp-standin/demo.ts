import { UsageError, type StandinOptions } from './args.ts';
import { majorOf } from './version.ts';

/**
 * Whether a new database gets demo data, per version (odoo/tools/config.py):
 * - 16.0–18.0 load it unless `--without-demo`/`without_demo` is set (`all`, `True` or a module
 *   list: any value but False turns it off for the new database); there is no `--with-demo`;
 * - 19.0 loads none unless `--with-demo`/`with_demo`; `--without-demo` keeps it off.
 * Unset FORJA_STANDIN_VERSION plays 18.0's rule.
 */
export function demoForNewDatabase(options: Pick<StandinOptions, 'withDemo' | 'withDemoInFile' | 'withoutDemo'>, version: string | undefined): boolean {
  const major = version ? majorOf(version) : 18;
  if (major >= 19) return (options.withDemo || options.withDemoInFile) && options.withoutDemo === undefined;
  // optparse's answer to an option it does not have.
  if (options.withDemo) throw new UsageError('no such option: --with-demo');
  return options.withoutDemo === undefined;
}
