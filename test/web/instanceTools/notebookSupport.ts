import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import type { WebPlatform } from '#test/support/webPlatform.ts';
import { alive } from './fakeTool.ts';

export const JUPYTER_NOTEBOOK = '/usr/bin/jupyter-notebook';
export const jupyterMissing = (): string | null =>
  existsSync(JUPYTER_NOTEBOOK) ? null : `${JUPYTER_NOTEBOOK} is missing: install the Debian package jupyter-notebook (.ci/run does) to test the notebook editor`;

/**
 * A project with a running instance `acme-dev` (its checkout holding `addon.py`), a queued one
 * `acme-new` and a destroyed one `acme-gone`, as the read model shows them.
 */
export async function buildNotebookFixture(platform: WebPlatform): Promise<void> {
  const developer = await platform.signedIn('developer');
  const ok = async (answer: Promise<{ status: number }>, what: string) => expect((await answer).status, what).to.be.oneOf([200, 303]);
  await ok(developer.post('/projects', { name: 'Acme' }), 'project');
  for (const name of ['Dev', 'New', 'Gone']) await ok(developer.post('/instances', { name, project: 'acme', erp_version: '18.0', branch: 'main' }), name);
  const jobs = jobPlayer(platform);
  await jobs.run('acme-dev', standinFacts('http://127.0.0.1:18091'));
  await jobs.run('acme-gone', standinFacts('http://127.0.0.1:18092'));
  await ok(developer.post('/instances/acme-gone/action', { action: 'destroy' }), 'destroy');
  await jobs.run('acme-gone');
  const source = join(platform.config.FORJA_DATA_DIR, 'instances', 'acme-dev', 'src');
  mkdirSync(source, { recursive: true });
  writeFileSync(join(source, 'addon.py'), 'ANSWER = 42\n');
}

/** The running notebook server's record (Jupyter writes `nbserver-<pid>.json` in its runtime folder): its pid and token. */
export function notebookServer(platform: WebPlatform, slug: string): { pid: number; token: string } | null {
  const runtime = join(platform.config.FORJA_DATA_DIR, 'instances', slug, 'tools', 'editor', 'runtime');
  const files = existsSync(runtime) ? readdirSync(runtime).filter((name) => /^nbserver-\d+\.json$/.test(name)) : [];
  // A server killed outright leaves its record behind: the live one is the one whose process exists.
  const servers = files.map((file) => JSON.parse(readFileSync(join(runtime, file), 'utf8')) as { pid: number; token: string });
  const live = servers.find((server) => alive(server.pid));
  return live ? { pid: live.pid, token: live.token } : null;
}
