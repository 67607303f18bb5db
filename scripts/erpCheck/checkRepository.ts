import { execFile } from 'node:child_process';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/**
 * A hosting team's repository in the layout Odoo.sh expects (odoo/documentation,
 * content/administration/odoo_sh/advanced/submodules.rst): one module at its root, one in
 * `addons/`, and a git submodule (an OCA-like repository) whose module sits one folder down.
 * Only an addons path built as Odoo.sh builds it finds all three; the root also holds folders
 * that are not modules, which the ERP must pass over.
 */
export const CHECK_MODULES = { root: 'forja_check_root', addons: 'forja_check_addons', submodule: 'forja_check_submodule' } as const;

/** Where the submodule goes in the main repository, and its module's folder inside it. */
const SUBMODULE_PATH = 'vendor/oca-tools';
const SUBMODULE_FOLDER = 'web_tools';

export interface CheckRepository {
  /** `file://` URL of the main repository (bare), as a project's git_repo would be. */
  url: string;
  branch: string;
  head: string;
}

const IDENTITY = { GIT_AUTHOR_NAME: 'Forja erp:check', GIT_AUTHOR_EMAIL: 'erp-check@forja.invalid', GIT_COMMITTER_NAME: 'Forja erp:check', GIT_COMMITTER_EMAIL: 'erp-check@forja.invalid' };

/** git in `cwd`; a local submodule needs file:// allowed (git 2.38.1+). */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec('git', ['-c', 'protocol.file.allow=always', '-c', 'init.defaultBranch=main', ...args], { cwd, env: { ...process.env, ...IDENTITY, GIT_TERMINAL_PROMPT: '0' } });
  return stdout.trim();
}

/** A module the ERP installs with nothing but `base`: `__init__.py` and a manifest (odoo/modules/module.py). */
async function writeModule(dir: string, name: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, '__init__.py'), '');
  await writeFile(join(dir, '__manifest__.py'), `{\n    'name': '${name}',\n    'version': '1.0',\n    'summary': 'Made by npm run erp:check; removed after it',\n    'depends': ['base'],\n    'license': 'LGPL-3',\n    'installable': True,\n}\n`);
}

/** A bare repository at `<dir>/<name>.git` holding one commit of what `fill` writes in a work tree; returns its URL. */
async function committed(dir: string, name: string, fill: (work: string) => Promise<void>): Promise<{ url: string; head: string }> {
  const bare = join(dir, `${name}.git`);
  const work = join(dir, `${name}-work`);
  await git(dir, 'init', '-q', '--bare', bare);
  await git(dir, 'init', '-q', work);
  await fill(work);
  await git(work, 'add', '-A');
  await git(work, 'commit', '-q', '-m', `erp:check ${name}`);
  await git(work, 'push', '-q', bare, 'HEAD:refs/heads/main');
  return { url: `file://${bare}`, head: await git(work, 'rev-parse', 'HEAD') };
}

/** Builds the repository and its submodule's in `dir` (a private temporary folder). */
export async function createCheckRepository(dir: string): Promise<CheckRepository> {
  const real = await realpath(dir);
  const submodule = await committed(real, 'oca-tools', (work) => writeModule(join(work, SUBMODULE_FOLDER, CHECK_MODULES.submodule), 'erp:check submodule module'));
  const main = await committed(real, 'customer', async (work) => {
    await writeFile(join(work, 'README.md'), 'A repository made by npm run erp:check.\n');
    await writeModule(join(work, CHECK_MODULES.root), 'erp:check root module');
    await writeModule(join(work, 'addons', CHECK_MODULES.addons), 'erp:check addons module');
    await git(work, 'submodule', 'add', '-q', submodule.url, SUBMODULE_PATH);
  });
  return { url: main.url, branch: 'main', head: main.head };
}
