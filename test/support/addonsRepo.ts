import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { commitAndPush, createBareRepo, git, type BareRepo } from './bareRepo.ts';

/** Writes a module folder (`__init__.py` and a manifest) at `dir`. */
export async function writeModule(dir: string, name: string, depends: readonly string[] = ['base']): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, '__init__.py'), '');
  await writeFile(join(dir, '__manifest__.py'), `{'name': '${name}', 'version': '1.0', 'depends': ${JSON.stringify(depends)}}\n`);
}

/** The modules of `addonsRepo`, each in a different kind of place. */
export const ADDONS_REPO_MODULES = { root: 'acme_root', addons: 'acme_sale', submodule: 'oca_widget' } as const;

/**
 * A hosting team's repository as Odoo.sh expects it: a module at its root (`acme_root`), one in
 * `addons/` (`acme_sale`), and an OCA-like git submodule at `vendor/oca` whose module sits one
 * folder down (`web_tools/oca_widget`). `extra` edits the main repository's work tree before its
 * commit (dot-folders, links…).
 */
export async function addonsRepo(extra: (work: string) => Promise<unknown> = async () => undefined): Promise<{ repo: BareRepo; head: string }> {
  const oca = await createBareRepo('oca-web');
  await commitAndPush(oca, 'main', 'add oca_widget', (work) => writeModule(join(work, 'web_tools', ADDONS_REPO_MODULES.submodule), 'OCA widget'));
  const repo = await createBareRepo('acme-erp');
  const head = await commitAndPush(repo, 'main', 'modules at the root, in addons/ and in a submodule', async (work) => {
    await writeModule(join(work, ADDONS_REPO_MODULES.root), 'Acme root');
    await writeModule(join(work, 'addons', ADDONS_REPO_MODULES.addons), 'Acme sale', ['base', ADDONS_REPO_MODULES.root]);
    await git(work, 'submodule', 'add', '-q', oca.url, 'vendor/oca');
    await extra(work);
  });
  return { repo, head };
}
