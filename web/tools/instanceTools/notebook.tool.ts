import { chownSync, existsSync, lstatSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InstanceToolLaunch, InstanceToolSpec } from './instanceToolSpec.ts';

const JUPYTER_NOTEBOOK = '/usr/bin/jupyter-notebook';

export const NOTEBOOK_MISSING = 'The notebook editor is not installed on this server: install the Debian package jupyter-notebook (apt-get install jupyter-notebook), then open it again.';

/** Where the notebooks live: below the tool's folder, so the tool's own files (runtime, secret) are out of its reach. */
export const notebooksDir = (launch: Pick<InstanceToolLaunch, 'workDir'>): string => join(launch.workDir, 'notebooks');

/**
 * The notebooks folder, the tool user's, with the instance's source checkout linked in as `source`.
 * The checkout stays the executor's (git works on it; the tool user only reads it), so notebooks
 * are saved beside it, not in it; the instance's folder itself would show the tool's secret.
 */
function prepareNotebooks(launch: InstanceToolLaunch, owner: { uid: number; gid: number } | null): void {
  writeToken(launch, owner);
  const dir = notebooksDir(launch);
  mkdirSync(dir, { recursive: true, mode: 0o750 });
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const link = join(dir, 'source');
  // Made again at each start: the instance may have gained (or lost) its checkout since.
  if (isLink(link)) rmSync(link);
  if (launch.sourceDir && !existsSync(link)) symlinkSync(launch.sourceDir, link);
}

/**
 * The token goes in the tool's config file, readable by its user alone: neither on the command line
 * (any local user reads it in ps) nor in the environment, which every kernel inherits (a cell
 * printing os.environ would show it).
 */
function writeToken(launch: InstanceToolLaunch, owner: { uid: number; gid: number } | null): void {
  const dir = join(launch.workDir, 'config');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'jupyter_notebook_config.json');
  writeFileSync(file, JSON.stringify({ NotebookApp: { token: launch.token } }), { mode: 0o600 });
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(file, owner.uid, owner.gid);
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The notebook editor: Debian's Jupyter Notebook 6 for the instance. It listens on a unix socket in
 * its own folder and trusts only the token the proxy adds to every request (`Authorization: token`),
 * so the browser never holds a key to it (web takes it out of the pages Jupyter writes it in); its
 * settings and kernels' files stay in that folder. A request with the token skips Jupyter's XSRF
 * and origin checks, so web makes them itself (instanceWebTools.ts).
 */
export const notebookTool: InstanceToolSpec = {
  kind: 'editor',
  label: 'The notebook editor',
  available: () => (existsSync(JUPYTER_NOTEBOOK) ? null : NOTEBOOK_MISSING),
  listen: 'socket',
  stripBasePath: false,
  readyPath: '/api/status',
  injectHeaders: (token) => ({ authorization: `token ${token}` }),
  prepare: prepareNotebooks,
  command: (launch) => ({
    file: JUPYTER_NOTEBOOK,
    args: [
      '--no-browser',
      `--NotebookApp.sock=${launch.socketPath}`,
      '--NotebookApp.sock_mode=0600',
      `--NotebookApp.base_url=${launch.basePath}/`,
      `--NotebookApp.notebook_dir=${notebooksDir(launch)}`,
      // Jupyter's terminals would be a shell beside the web shell's rules; its quit button would stop it for everyone.
      '--NotebookApp.terminals_enabled=False',
      '--NotebookApp.quit_button=False',
      '--NotebookApp.allow_remote_access=True',
    ],
    env: {
      HOME: launch.workDir,
      JUPYTER_CONFIG_DIR: join(launch.workDir, 'config'),
      JUPYTER_DATA_DIR: join(launch.workDir, 'data'),
      JUPYTER_RUNTIME_DIR: join(launch.workDir, 'runtime'),
      IPYTHONDIR: join(launch.workDir, 'ipython'),
      PYTHONDONTWRITEBYTECODE: '1',
    },
  }),
};
