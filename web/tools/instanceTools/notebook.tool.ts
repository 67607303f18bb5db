import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { InstanceToolLaunch, InstanceToolSpec } from './instanceToolSpec.ts';
import { linkInToolFolder, toolSubfolder, writeToolFile } from './toolFolder.ts';

const JUPYTER_NOTEBOOK = '/usr/bin/jupyter-notebook';

export const NOTEBOOK_MISSING = 'The notebook editor is not installed on this server: install the Debian package jupyter-notebook (apt-get install jupyter-notebook), then open it again.';

/** Where the notebooks live: below the tool's folder, so the tool's own files (runtime, secret) are out of its reach. */
export const notebooksDir = (launch: Pick<InstanceToolLaunch, 'workDir'>): string => join(launch.workDir, 'notebooks');

/**
 * The notebooks folder, the tool account's, with the instance's source checkout linked in as `source`.
 * The checkout stays the executor's (git works on it; the tool's account only reads it), so notebooks
 * are saved beside it, not in it; the instance's folder itself would show the tool's secret.
 * All through toolFolder.ts: the tenant writes in these folders and may have planted links.
 */
function prepareNotebooks(launch: InstanceToolLaunch): void {
  writeToken(launch);
  toolSubfolder(launch, 'notebooks');
  // Made again at each start: the instance may have gained (or lost) its checkout since.
  linkInToolFolder(launch, 'notebooks', 'source', launch.sourceDir);
}

/**
 * The token goes in the tool's config file, readable by its account alone: neither on the command line
 * (any local user reads it in ps) nor in the environment, which every kernel inherits (a cell
 * printing os.environ would show it).
 */
function writeToken(launch: InstanceToolLaunch): void {
  toolSubfolder(launch, 'config');
  writeToolFile(launch, 'config/jupyter_notebook_config.json', JSON.stringify({ NotebookApp: { token: launch.token } }));
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
