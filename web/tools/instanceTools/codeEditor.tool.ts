import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { InstanceToolLaunch, InstanceToolSpec } from './instanceToolSpec.ts';
import { toolSubfolder, writeToolFile } from './toolFolder.ts';
import { toolUid } from './toolLaunch.ts';

/** code-server's session cookie: the proxy sends the start's secret in it, so the browser never holds one. */
const SESSION_COOKIE = 'code-server-session';

const NOT_INSTALLED =
  'The code editor is not installed on this server: code-server is an optional npm dependency whose install builds native modules. ' +
  'Install the Debian packages build-essential, python3, libkrb5-dev and ripgrep, run scripts/seed-ripgrep-for-code-server.sh, then npm ci (README, "Code editor").';

/**
 * VS Code's settings that would reach the network on their own (the command line turns off
 * telemetry, update checks and the extension gallery; these cover what only settings do), and no
 * welcome page: the editor opens on the source.
 */
const OFFLINE_SETTINGS = {
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.enableExperiments': false,
  'workbench.settings.enableNaturalLanguageSearch': false,
  'json.schemaDownload.enable': false,
  'npm.fetchOnlinePackageInfo': false,
  'typescript.disableAutomaticTypeAcquisition': true,
  'git.autofetch': false,
  // The data folder may sit inside a git checkout (the default .data in Forja's own): not the instance's repository.
  'git.openRepositoryInParentFolders': 'never',
  'workbench.startupEditor': 'none',
};

let installedEntry: string | null = null;

/**
 * code-server's entry script, or null when the optional package is missing or its install did not
 * finish. Asked on every request (static assets included), so a found one is remembered.
 */
function codeServerEntry(): string | null {
  installedEntry ??= findCodeServerEntry();
  return installedEntry;
}

function findCodeServerEntry(): string | null {
  try {
    const root = dirname(createRequire(import.meta.url).resolve('code-server/package.json'));
    // Its postinstall builds VS Code's own node_modules; without them it starts and then fails.
    return existsSync(join(root, 'lib', 'vscode', 'node_modules')) ? join(root, 'out', 'node', 'entry.js') : null;
  } catch {
    return null;
  }
}

/**
 * The checkout belongs to the executor (a rebuild replaces it; the ERP only reads it). When the
 * editor runs as another account (as root: the instance's own) it cannot save there, so VS Code is
 * told the files are read-only and says so with a lock, instead of failing at every save.
 */
function editorSettings(launch: InstanceToolLaunch): Record<string, unknown> {
  const checkoutIsOthers = launch.sourceDir !== null && existsSync(launch.sourceDir) && statSync(launch.sourceDir).uid !== toolUid(launch.owner);
  return checkoutIsOthers ? { ...OFFLINE_SETTINGS, 'files.readonlyInclude': { '**': true } } : OFFLINE_SETTINGS;
}

/** code-server's folders and files for one start, all in the tool's own folder, made through toolFolder.ts (the tenant writes there). */
function prepareFolders(launch: InstanceToolLaunch) {
  const userDataDir = toolSubfolder(launch, 'user-data');
  toolSubfolder(launch, 'user-data', 'User');
  // Only when missing: what the user changed later is kept.
  writeToolFile(launch, 'user-data/User/settings.json', `${JSON.stringify(editorSettings(launch), null, 2)}\n`, true);
  // Without a config file code-server writes one with a password of its own; everything is on the command line instead.
  const configFile = writeToolFile(launch, 'config.yaml', '# Forja starts code-server with all its settings on the command line.\nauth: password\n', true);
  return { userDataDir, configFile, extensionsDir: toolSubfolder(launch, 'extensions'), home: toolSubfolder(launch, 'home') };
}

/**
 * The code editor: code-server (VS Code in the browser, from npm) on the instance's source checkout,
 * or on its folder when it has none. It listens on a unix socket in its own folder and takes only
 * the session cookie the proxy adds to every request (the start's secret as its "hashed password",
 * compared as it is), so the browser never holds a key to it. Telemetry, update checks and the
 * extension gallery are off: it needs no network; its settings and extensions stay in its folder.
 */
export const codeEditorTool: InstanceToolSpec = {
  kind: 'code',
  label: 'The code editor',
  available: () => (codeServerEntry() ? null : NOT_INSTALLED),
  listen: 'socket',
  // code-server serves itself at / with relative links only, and expects its proxy to take the prefix off.
  stripBasePath: true,
  readyPath: '/healthz',
  // The workbench page brings its own policy, which replaces web's. The page that runs web
  // extensions (webWorkerExtensionHostIframe.html) is a static file with only a <meta> policy: it
  // pins its inline script by hash and starts its worker from a blob: web's policy must let those through.
  scriptSources: ["'unsafe-inline'", "'unsafe-eval'", 'blob:'],
  injectHeaders: (token) => ({ cookie: `${SESSION_COOKIE}=${token}` }),
  command: (launch) => {
    const folders = prepareFolders(launch);
    return {
      file: process.execPath,
      args: [
        codeServerEntry() ?? 'code-server',
        '--auth=password',
        `--socket=${launch.socketPath}`,
        '--socket-mode=600',
        `--config=${folders.configFile}`,
        `--user-data-dir=${folders.userDataDir}`,
        `--extensions-dir=${folders.extensionsDir}`,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        // Its own proxy to other ports of the machine: not something web should pass on.
        '--disable-proxy',
        '--ignore-last-opened',
        `--app-name=Forja ${launch.slug}`,
        launch.sourceDir ?? launch.instanceDir,
      ],
      env: {
        // The secret comes from the environment, not the command line other users can read in ps.
        // Not an argon2 hash, so code-server compares the cookie with it as it is.
        HASHED_PASSWORD: launch.token,
        // An empty gallery: no extension marketplace is asked for anything.
        EXTENSIONS_GALLERY: '{}',
        HOME: folders.home,
        XDG_CONFIG_HOME: join(folders.home, '.config'),
        XDG_DATA_HOME: join(folders.home, '.local', 'share'),
        XDG_CACHE_HOME: join(folders.home, '.cache'),
        SHELL: '/bin/bash',
      },
    };
  },
};
