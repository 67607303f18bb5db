import { spawnSync } from 'node:child_process';
import type { StartProcess } from '../platform/process.ts';
import { CODE_EDITOR_BUILD_PACKAGES, codeEditorInstalled, installCodeEditor } from './codeEditorInstall.ts';

/**
 * What the tools `npm start` runs come from (README, "Mail catcher" and after): monitoring,
 * the database admin, the notebook editor and the web shell, and python3-venv for instances' own
 * virtualenvs (pythonEnv/instanceVenv.ts, which also installs it on first use). The mail catcher
 * and the code editor are npm packages.
 */
export const TOOL_PACKAGES: readonly string[] = ['prometheus', 'prometheus-postgres-exporter', 'php-cli', 'php-pgsql', 'adminer', 'jupyter-notebook', 'python3', 'python3-venv'];

/** Whether dpkg has the package installed (no dpkg, as off Debian: no). */
export function debianPackageInstalled(name: string): boolean {
  const query = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return query.status === 0 && query.stdout.trim() === 'install ok installed';
}

export type ToolPackagesOutcome = { installed: string[] } | { missing: string[]; reason: string };

/**
 * Installs the tools' missing Debian packages, as PostgreSQL and nats-server are installed on
 * first use: only as root, in one apt-get run. Unlike those, a tool is not needed to run Forja, so
 * a failure is reported, not thrown: the tools it concerns say they are off and the rest starts.
 */
export function installToolPackages(packages: readonly string[] = TOOL_PACKAGES, isInstalled = debianPackageInstalled): ToolPackagesOutcome {
  const missing = packages.filter((name) => !isInstalled(name));
  if (missing.length === 0) return { installed: [] };
  if (process.getuid?.() !== 0) return { missing, reason: `not root: install them with apt-get install ${missing.join(' ')}` };
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { stdio: 'inherit', env }).status;
  if (install() === 0) return { installed: missing };
  if (spawnSync('apt-get', ['update', '-q'], { stdio: 'inherit', env }).status === 0 && install() === 0) return { installed: missing };
  return { missing, reason: `apt-get install ${missing.join(' ')} failed (see its output above)` };
}

/**
 * `npm start`'s first step: the tools' Debian packages, installed when missing (as root), then the
 * code editor when a plain `npm install` left it out, before the tools look for them.
 */
export const startToolPackages: StartProcess = async (_infra, _config, logger) => {
  const editorMissing = !codeEditorInstalled();
  const outcome = installToolPackages(editorMissing ? [...TOOL_PACKAGES, ...CODE_EDITOR_BUILD_PACKAGES] : TOOL_PACKAGES);
  const lines = 'reason' in outcome ? [`missing ${outcome.missing.join(', ')}: ${outcome.reason}; the tools that need them are off`] : outcome.installed.length > 0 ? [`installed ${outcome.installed.join(', ')} from Debian`] : [];
  if ('reason' in outcome) logger.warn({ missing: outcome.missing }, `tool packages: ${outcome.reason}`);
  if (editorMissing && !('reason' in outcome)) {
    const editor = installCodeEditor();
    if ('reason' in editor) {
      lines.push(`code editor (code-server) not installed: ${editor.reason}`);
      logger.warn(`code editor: ${editor.reason}`);
    } else if (editor.installed) lines.push('installed the code editor (code-server, from npm)');
  }
  return { name: 'tools', describe: () => lines, stop: async () => {} };
};
