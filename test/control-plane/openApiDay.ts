import type { Role } from '#shared/auth/roles.ts';

export interface CallOptions {
  /** Path parameters by name. */
  params?: Record<string, string>;
  /** HTTP Basic as the user of this role. */
  as?: Role;
  /** The service token, acting for the user of this role (`/internal/*`). */
  actor?: Role;
  json?: unknown;
  /** A body sent as is, as JSON. */
  raw?: string;
  headers?: Record<string, string>;
}

/** Calls `method` on the documented `template` and holds the answer against the document. */
export type Caller = (method: string, template: string, options?: CallOptions) => Promise<{ status: number; json(): Record<string, unknown> }>;

/**
 * A day of ordinary calls to the control-plane, through the public API and web's internal one:
 * projects with a repository, push hook and SSH key; instances; a migration run, paused, reported
 * on, stopped and deleted; recipes. Returns the calls whose status was not the expected one.
 */
export async function dayOfCalls(call: Caller, repoUrl: string): Promise<string[]> {
  const unexpected: string[] = [];
  const expectStatus = async (expected: number | number[], method: string, template: string, options: CallOptions = {}) => {
    const answer = await call(method, template, options);
    if (![expected].flat().includes(answer.status)) unexpected.push(`${method} ${template} ${JSON.stringify(options.params ?? {})}: ${answer.status}, expected ${String(expected)}`);
    return answer;
  };
  const dev = { as: 'developer' } as const;
  const admin = { as: 'admin' } as const;
  const acme = { params: { slug: 'acme-norte' } };

  await expectStatus(200, 'GET', '/health');
  await expectStatus(200, 'GET', '/metrics');
  await expectStatus(200, 'GET', '/api/v1/me', { as: 'viewer' });
  await expectStatus(201, 'POST', '/api/v1/projects', { ...dev, json: { name: 'Acme Norte' } });
  await expectStatus(409, 'POST', '/api/v1/projects', { ...dev, json: { name: 'Acme Norte' } });
  await expectStatus(200, 'GET', '/api/v1/projects', dev);
  await expectStatus(200, 'PUT', '/api/v1/projects/{slug}/repository', { ...dev, ...acme, json: { git_repo: repoUrl } });
  const rotated = await expectStatus(200, 'POST', '/api/v1/projects/{slug}/webhook/rotate', { ...dev, ...acme });
  const token = String(rotated.json()['webhook_path']).split('/').pop()!;
  await expectStatus(200, 'GET', '/api/v1/projects/{slug}', { ...dev, ...acme });
  const push = { params: { project_slug: 'acme-norte', token }, headers: { 'x-github-event': 'push' }, json: { ref: 'refs/heads/main', before: '0'.repeat(40), after: 'a'.repeat(40) } };
  await expectStatus(200, 'POST', '/webhooks/git/{project_slug}/{token}', push);
  await expectStatus(403, 'POST', '/webhooks/git/{project_slug}/{token}', { ...push, params: { project_slug: 'acme-norte', token: 'f'.repeat(64) } });

  const key = await expectStatus(201, 'POST', '/api/v1/ssh-keys', { ...admin, json: { name: 'deploy-acme', generate: true } });
  const keyId = String(key.json()['id']);
  await expectStatus(200, 'GET', '/api/v1/ssh-keys', dev);
  await expectStatus(200, 'POST', '/api/v1/projects/{slug}/ssh-keys', { ...dev, ...acme, json: { key_id: Number(keyId) } });
  await expectStatus(200, 'GET', '/api/v1/projects/{slug}/ssh-keys', { ...dev, ...acme });
  await expectStatus(200, 'POST', '/api/v1/projects/{slug}/repo/verify', { ...dev, ...acme });
  await expectStatus(404, 'POST', '/api/v1/projects/{slug}/host-keys/forget', { ...admin, ...acme, json: { host: 'git.example.com' } });
  await expectStatus(200, 'DELETE', '/api/v1/projects/{slug}/ssh-keys/{key_id}', { ...dev, params: { slug: 'acme-norte', key_id: keyId } });
  await expectStatus(204, 'DELETE', '/api/v1/ssh-keys/{key_id}', { ...admin, params: { key_id: keyId } });

  await expectStatus(201, 'POST', '/api/v1/instances', { ...dev, json: { name: 'Main', project: 'acme-norte', erp_version: '18.0' } });
  await expectStatus(200, 'GET', '/api/v1/instances', dev);
  await expectStatus(200, 'GET', '/api/v1/instances/{slug}', { ...dev, params: { slug: 'acme-norte-main' } });
  await expectStatus([200, 409], 'POST', '/api/v1/instances/{slug}/action', { ...dev, params: { slug: 'acme-norte-main' }, json: { action: 'stop' } });

  const norte = { params: { slug: 'norte' } };
  await expectStatus(201, 'POST', '/api/v1/migrations', { ...dev, json: { name: 'Norte', origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/norte.dump' } });
  await expectStatus(200, 'GET', '/api/v1/migrations', dev);
  await expectStatus(200, 'PATCH', '/api/v1/migrations/{slug}', { ...dev, ...norte, json: { notify_to: ['ops@example.com'] } });
  await expectStatus(201, 'POST', '/api/v1/migrations/{slug}/run', { ...dev, ...norte });
  await expectStatus(200, 'GET', '/api/v1/migrations/{slug}', { ...dev, ...norte });
  await expectStatus(200, 'GET', '/api/v1/migrations/{slug}/runs', { ...dev, ...norte });
  await expectStatus(200, 'GET', '/api/v1/migrations/{slug}/runs/{number}', { ...dev, params: { slug: 'norte', number: '1' } });
  await expectStatus(409, 'POST', '/api/v1/migrations/{slug}/run-anyway', { ...dev, ...norte, json: { reason: 'the pre-flight did not fail' } });
  await expectStatus(409, 'POST', '/api/v1/migrations/{slug}/runs/{number}/resume', { ...dev, params: { slug: 'norte', number: '1' }, json: { decision: 'approve' } });
  await expectStatus([200, 409], 'POST', '/api/v1/migrations/{slug}/pause', { ...dev, ...norte });
  await expectStatus([200, 409], 'POST', '/api/v1/migrations/{slug}/resume', { ...dev, ...norte });
  const report = await expectStatus(201, 'POST', '/api/v1/migrations/{slug}/runs/{number}/report', { ...dev, params: { slug: 'norte', number: '1' } });
  await expectStatus(200, 'GET', '/api/v1/migrations/{slug}/artifacts/{artifact_id}', { ...dev, params: { slug: 'norte', artifact_id: String(report.json()['id']) } });
  await expectStatus(200, 'GET', '/api/v1/migrations/{slug}/history', { ...dev, ...norte });
  await expectStatus(200, 'GET', '/api/v1/migrations/{slug}/history.jsonl', { ...dev, ...norte });
  await expectStatus(200, 'GET', '/api/v1/migrations/{slug}/history/{position}', { ...dev, params: { slug: 'norte', position: '1' } });
  await expectStatus(200, 'GET', '/api/v1/migrations/{slug}/resync', { ...dev, ...norte });
  await expectStatus([200, 409], 'POST', '/api/v1/migrations/{slug}/resync', { ...dev, ...norte, json: { decision: 'keep' } });
  await expectStatus(200, 'POST', '/api/v1/migrations/{slug}/stop', { ...dev, ...norte });
  await expectStatus(204, 'DELETE', '/api/v1/migrations/{slug}', { ...dev, ...norte, json: { confirm_name: 'Norte' } });

  const hop = { params: { flavor: 'community', stem: '16.0-17.0' } };
  await expectStatus(200, 'GET', '/api/v1/recipes', dev);
  const recipe = await expectStatus(200, 'GET', '/api/v1/recipes/{flavor}/{stem}', { ...dev, ...hop });
  const yaml = String(recipe.json()['yaml']);
  await expectStatus(200, 'PUT', '/api/v1/recipes/{flavor}/{stem}', { ...admin, ...hop, json: { yaml } });

  await internalDay(expectStatus, repoUrl, yaml);
  return unexpected;
}

type Expect = (expected: number | number[], method: string, template: string, options?: CallOptions) => Promise<{ status: number; json(): Record<string, unknown> }>;

/** The same day through web's internal API: the service token, acting for a user. */
async function internalDay(expectStatus: Expect, repoUrl: string, yaml: string): Promise<void> {
  const dev = { actor: 'developer' } as const;
  const admin = { actor: 'admin' } as const;
  const sur = { params: { slug: 'acme-sur' } };
  await expectStatus(200, 'POST', '/internal/auth/verify', { ...admin, json: { email: 'viewer@example.com', password: 'correct horse battery' } });
  await expectStatus(401, 'POST', '/internal/auth/verify', { ...admin, json: { email: 'viewer@example.com', password: 'a wrong password' } });
  await expectStatus(200, 'POST', '/internal/users/oidc', { ...admin, json: { email: 'new.person@example.com' } });
  await expectStatus(201, 'POST', '/internal/projects', { ...dev, json: { name: 'Acme Sur' } });
  await expectStatus(200, 'POST', '/internal/projects/{slug}/repository', { ...dev, ...sur, json: { git_repo: repoUrl } });
  await expectStatus(200, 'POST', '/internal/projects/{slug}/webhook/rotate', { ...dev, ...sur });
  const key = await expectStatus(201, 'POST', '/internal/ssh-keys', { ...admin, json: { name: 'deploy-sur', generate: true } });
  const keyId = String(key.json()['id']);
  await expectStatus(200, 'POST', '/internal/projects/{slug}/ssh-keys/add', { ...dev, ...sur, json: { key_id: Number(keyId) } });
  await expectStatus(200, 'POST', '/internal/projects/{slug}/repo/verify', { ...dev, ...sur });
  await expectStatus(404, 'POST', '/internal/projects/{slug}/host-keys/forget', { ...admin, ...sur, json: { host: 'git.example.com' } });
  await expectStatus(200, 'POST', '/internal/projects/{slug}/ssh-keys/{key_id}/remove', { ...dev, params: { slug: 'acme-sur', key_id: keyId } });
  await expectStatus(200, 'POST', '/internal/ssh-keys/{key_id}/delete', { ...admin, params: { key_id: keyId } });
  await expectStatus(201, 'POST', '/internal/instances', { ...dev, json: { name: 'Main', project: 'acme-sur', erp_version: '18.0' } });
  await expectStatus([200, 409], 'POST', '/internal/instances/{slug}/action', { ...dev, params: { slug: 'acme-sur-main' }, json: { action: 'destroy' } });
  await expectStatus(200, 'POST', '/internal/instances/purge', admin);

  const south = { params: { slug: 'south' } };
  const run = { params: { slug: 'south', number: '1' } };
  await expectStatus(201, 'POST', '/internal/migrations', { ...dev, json: { name: 'South', origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/south.dump' } });
  await expectStatus(200, 'POST', '/internal/migrations/{slug}/edit', { ...dev, ...south, json: { notify_to: ['ops@example.com'] } });
  await expectStatus(201, 'POST', '/internal/migrations/{slug}/run', { ...dev, ...south });
  await expectStatus(409, 'POST', '/internal/migrations/{slug}/run-anyway', { ...dev, ...south, json: { reason: 'the pre-flight did not fail' } });
  await expectStatus([200, 409], 'POST', '/internal/migrations/{slug}/pause', { ...dev, ...south });
  await expectStatus([200, 409], 'POST', '/internal/migrations/{slug}/resume', { ...dev, ...south });
  await expectStatus(409, 'POST', '/internal/migrations/{slug}/runs/{number}/resume', { ...dev, ...run, json: { decision: 'approve' } });
  await expectStatus(201, 'POST', '/internal/migrations/{slug}/runs/{number}/report', { ...dev, ...run });
  await expectStatus(200, 'GET', '/internal/migrations/{slug}/history', { ...dev, ...south });
  await expectStatus(200, 'GET', '/internal/migrations/{slug}/history.jsonl', { ...dev, ...south });
  await expectStatus(200, 'GET', '/internal/migrations/{slug}/history/{position}', { ...dev, params: { slug: 'south', position: '1' } });
  await expectStatus(200, 'GET', '/internal/migrations/{slug}/resync', { ...dev, ...south });
  await expectStatus([200, 409], 'POST', '/internal/migrations/{slug}/resync', { ...dev, ...south, json: { decision: 'keep' } });
  await expectStatus(200, 'POST', '/internal/migrations/{slug}/stop', { ...dev, ...south });
  await expectStatus(200, 'POST', '/internal/migrations/{slug}/delete', { ...dev, ...south, json: { confirm_name: 'South' } });
  await expectStatus(200, 'POST', '/internal/recipes/save', { ...admin, json: { key: 'community.16.0-17.0', yaml } });
  await expectStatus(200, 'POST', '/internal/projects/{slug}/delete', { actor: 'admin', ...sur, json: { confirm_name: 'Acme Sur' } });
}
