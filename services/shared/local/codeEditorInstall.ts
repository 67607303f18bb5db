import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** What code-server's install needs from Debian: it builds VS Code's native modules, and Debian's rg stands in for the one @vscode/ripgrep would download. */
export const CODE_EDITOR_BUILD_PACKAGES: readonly string[] = ['build-essential', 'python3', 'libkrb5-dev', 'ripgrep'];

/** Whether the code editor (the optional npm dependency code-server) is installed and built. */
export function codeEditorInstalled(root = PROJECT_ROOT): boolean {
  return existsSync(join(root, 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules'));
}

export type CodeEditorOutcome = { installed: boolean } | { reason: string };

/**
 * Builds the code editor that a plain `npm install` leaves out (its install runs as root only when
 * told, builds native modules and would download ripgrep, so npm drops the optional dependency),
 * the way .ci/run installs it: Debian's rg in @vscode/ripgrep's cache, then npm install with the
 * settings its scripts need. Only as root, once the build packages are there; a failure is
 * reported, and the editor's page then says what to install.
 */
export function installCodeEditor(root = PROJECT_ROOT): CodeEditorOutcome {
  if (codeEditorInstalled(root)) return { installed: false };
  if (process.getuid?.() !== 0) return { reason: 'not root: install it as the README\'s "Code editor" says' };
  if (spawnSync('sh', [join(root, 'scripts', 'seed-ripgrep-for-code-server.sh')], { stdio: 'inherit' }).status !== 0) return { reason: 'Debian\'s ripgrep could not be put in its place (see above)' };
  const env = { ...process.env, npm_config_yes: 'true', npm_config_unsafe_perm: 'true' };
  spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', env });
  return codeEditorInstalled(root) ? { installed: true } : { reason: 'npm install did not build code-server (see its output above)' };
}
