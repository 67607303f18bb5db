import type { ValidationIssue } from '#shared/http/errors.ts';
import type { MigrationHistoryOut, MigrationStateAsOfOut } from './migrations/migrationHistoryOut.ts';

/** The body of `POST /internal/instances` (schemas/api/InstanceCreate.v1.json). */
export interface InstanceCreateBody {
  name: string;
  project: string;
  stage?: string;
  erp_version: string;
  edition?: string;
  modules?: string[];
  git_repo?: string;
  branch?: string;
  clone_from?: string;
  from_backup?: number;
  from_migration?: string;
  upload?: { upload_id: string; dump_format: 'custom' | 'plain'; has_filestore: boolean };
  demo_data?: boolean;
}

/** What web reads of an InstanceOut (schemas/api/InstanceOut.v1.json). */
export interface InstanceOut {
  slug: string;
  name: string;
  status: string;
}

/** The body of `POST /internal/migrations` (schemas/api/MigrationCreate.v1.json). */
export interface MigrationCreateBody {
  name: string;
  origin: string;
  destination: string;
  flavor?: string;
  engine?: string;
  purpose?: string;
  contract?: string;
  notify_to?: string[];
  pull_url?: string;
  /** The project whose repository holds the customer's code, and that code's branch (and commit) per destination version. */
  project?: string | null;
  code?: Record<string, { branch: string; commit?: string | null }>;
  /** Files the form streamed to blob storage (web only). */
  upload?: { upload_id: string; dump_name: string; filestore_name: string | null; bytes: number; sha256: string };
}

/** The body of `POST /internal/migrations/{slug}/edit` (schemas/api/MigrationEdit.v1.json). */
export type MigrationEditBody = Partial<Omit<MigrationCreateBody, 'name' | 'pull_url' | 'upload' | 'contract'>> & { contract?: string | null };

/** What web shows of a resync (schemas/api/ResyncOut.v1.json). */
export interface ResyncOut {
  slug: string;
  up_to_date: boolean;
  from: { key: string; sha256: string };
  to: { key: string; sha256: string } | null;
  current_error: string | null;
  blocked: string | null;
  steps: Array<{ id: string; kind: string; change: 'added' | 'removed' | 'changed' | 'same'; fields: string[] }>;
  diff: string;
  adopt: { reuse: string[]; checkpoint: string | null; restore_again: boolean; resumes: boolean } | null;
}

/** What web reads of a MigrationOut (schemas/api/MigrationOut.v1.json). */
export interface MigrationOut {
  slug: string;
  name: string;
  status: string;
}

/** A new keyring key (schemas/api/SshKeyCreate.v1.json). */
export interface SshKeyCreateBody {
  name: string;
  generate?: boolean;
  key_type?: 'ed25519' | 'ecdsa' | 'rsa';
  private_key?: string;
  passphrase?: string;
}

/** schemas/api/RepoVerifyOut.v1.json */
export interface RepoVerifyOut {
  ok: boolean;
  repositories: Array<{ url: string; path: string | null; status: string; head: string | null; message: string }>;
  keys: string[];
  deleted_keys: string[];
}

/** schemas/api/ReadinessOut.v1.json */
export interface ReadinessOut {
  run: number | null;
  note: string;
  hops: Array<{
    origin: string;
    destination: string;
    counts: { ok: number; warning: number; blocks: number };
    modules: Array<{ module: string; found: string; where: string | null; openupgrade: string | null; verdict: 'ok' | 'warning' | 'blocks'; note: string }>;
  }>;
}

/** What the control-plane said when it refused a command. */
export class CommandRefused extends Error {
  override readonly name = 'CommandRefused';
  constructor(
    readonly status: number,
    readonly detail: string | ValidationIssue[],
  ) {
    super(typeof detail === 'string' ? detail : detail.map((issue) => issue.msg).join('; '));
  }

  /** The message of the issue at `field` of the body, or of the whole body, for a form. */
  messageFor(field: string): string | undefined {
    if (typeof this.detail === 'string') return this.detail;
    const issue = this.detail.find((candidate) => candidate.loc[1] === field) ?? this.detail.find((candidate) => candidate.loc.length === 1);
    return issue?.msg;
  }
}

/**
 * Web's way to change anything: the control-plane's internal endpoints, with the service token and
 * the signed-in user as the actor, so every event records who did it. Commands answer once the
 * read models show the change.
 */
export function controlPlaneClient(baseUrl: string, serviceToken: string) {
  async function post<T>(path: string, body: unknown, actorId?: string, timeoutMs = 15_000): Promise<T> {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${serviceToken}`,
        'content-type': 'application/json',
        ...(actorId ? { 'x-forja-actor': actorId } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const payload = (await response.json().catch(() => ({ detail: `control-plane answered ${response.status}` }))) as { detail?: string | ValidationIssue[] } & T;
    if (!response.ok) throw new CommandRefused(response.status, payload.detail ?? `control-plane answered ${response.status}`);
    return payload;
  }

  /** A read the control-plane answers from the event store (the audit history), for the acting user. */
  async function get(path: string, actorId: string): Promise<Response> {
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${serviceToken}`, 'x-forja-actor': actorId }, signal: AbortSignal.timeout(15_000) });
    if (response.ok) return response;
    const payload = (await response.json().catch(() => ({}))) as { detail?: string | ValidationIssue[] };
    throw new CommandRefused(response.status, payload.detail ?? `control-plane answered ${response.status}`);
  }

  return {
    verifyPassword: (email: string, password: string) => post<{ user_id: string; email: string; role: string }>('/internal/auth/verify', { email, password }),
    signInFromIdentityProvider: (email: string) => post<{ user_id: string; email: string; role: string }>('/internal/users/oidc', { email }),
    createProject: (actorId: string, name: string) => post<{ slug: string; name: string }>('/internal/projects', { name }, actorId),
    setRepository: (actorId: string, slug: string, gitRepo: string) => post<{ slug: string }>(`/internal/projects/${encodeURIComponent(slug)}/repository`, { git_repo: gitRepo }, actorId),
    rotateWebhook: (actorId: string, slug: string) => post<{ slug: string }>(`/internal/projects/${encodeURIComponent(slug)}/webhook/rotate`, {}, actorId),
    deleteProject: (actorId: string, slug: string, confirmName: string) =>
      post<{ slug: string; destroyed: string[] }>(`/internal/projects/${encodeURIComponent(slug)}/delete`, { confirm_name: confirmName }, actorId),
    createSshKey: (actorId: string, body: SshKeyCreateBody) => post<{ id: number; name: string; fingerprint: string }>('/internal/ssh-keys', body, actorId, 60_000),
    deleteSshKey: (actorId: string, keyId: number) => post<{ id: number }>(`/internal/ssh-keys/${keyId}/delete`, {}, actorId),
    addProjectKey: (actorId: string, slug: string, keyId: number) => post<unknown>(`/internal/projects/${encodeURIComponent(slug)}/ssh-keys/add`, { key_id: keyId }, actorId),
    removeProjectKey: (actorId: string, slug: string, keyId: number) => post<unknown>(`/internal/projects/${encodeURIComponent(slug)}/ssh-keys/${keyId}/remove`, {}, actorId),
    forgetHostKey: (actorId: string, slug: string, host: string, port: number) => post<unknown>(`/internal/projects/${encodeURIComponent(slug)}/host-keys/forget`, { host, port }, actorId),
    /** Waits as long as the control-plane's own bound on a verification (2 minutes), and a little more. */
    verifyRepository: (actorId: string, slug: string) => post<RepoVerifyOut>(`/internal/projects/${encodeURIComponent(slug)}/repo/verify`, {}, actorId, 135_000),
    createInstance: (actorId: string, body: InstanceCreateBody) => post<InstanceOut>('/internal/instances', body, actorId),
    instanceAction: (actorId: string, slug: string, action: string) => post<InstanceOut>(`/internal/instances/${encodeURIComponent(slug)}/action`, { action }, actorId),
    purgeInstances: (actorId: string) => post<{ purged: string[] }>('/internal/instances/purge', {}, actorId),
    /** A person used one of the instance's tools: activity for the sleep sweep (a visit, when it runs). */
    recordInstanceActivity: (actorId: string, slug: string) => post<{ recorded: boolean }>(`/internal/instances/${encodeURIComponent(slug)}/activity`, {}, actorId),
    /** Records a web shell before it starts (refused with 409 when the instance has nothing to open one in). */
    openShellSession: (actorId: string, slug: string, sessionId: string, runtime: 'process' | 'docker') =>
      post<{ recorded: boolean }>(`/internal/instances/${encodeURIComponent(slug)}/shell-sessions`, { session_id: sessionId, runtime }, actorId),
    closeShellSession: (actorId: string, slug: string, sessionId: string, durationMs: number, reason: 'user' | 'idle' | 'error' | 'server') =>
      post<{ recorded: boolean }>(`/internal/instances/${encodeURIComponent(slug)}/shell-sessions/${encodeURIComponent(sessionId)}/close`, { duration_ms: durationMs, reason }, actorId),
    createMigration: (actorId: string, body: MigrationCreateBody) => post<MigrationOut>('/internal/migrations', body, actorId),
    editMigration: (actorId: string, slug: string, body: MigrationEditBody) => post<MigrationOut & { ignored: string[] }>(`${migrationPath(slug)}/edit`, body, actorId),
    runMigration: (actorId: string, slug: string) => post<{ number: number }>(`${migrationPath(slug)}/run`, {}, actorId),
    runMigrationAnyway: (actorId: string, slug: string, reason: string) => post<{ number: number }>(`${migrationPath(slug)}/run-anyway`, { reason }, actorId),
    migrationAction: (actorId: string, slug: string, action: 'pause' | 'resume' | 'stop') => post<MigrationOut>(`${migrationPath(slug)}/${action}`, {}, actorId),
    resolveMigrationGate: (actorId: string, slug: string, number: number, decision: 'approve' | 'reject', note: string) =>
      post<{ number: number }>(`${migrationPath(slug)}/runs/${number}/resume`, { decision, ...(note ? { note } : {}) }, actorId),
    deleteMigration: (actorId: string, slug: string, confirmName: string) => post<{ slug: string }>(`${migrationPath(slug)}/delete`, { confirm_name: confirmName }, actorId),
    /** The run's PDF report, generated now and registered as its artifact (schemas/api/ArtifactOut.v1.json). */
    generateMigrationReport: (actorId: string, slug: string, number: number) =>
      post<{ id: number; run: number; name: string; bytes: number; sha256: string }>(`${migrationPath(slug)}/runs/${number}/report`, {}, actorId),
    migrationHistory: async (actorId: string, slug: string, filters: Record<string, string>) =>
      (await get(`${migrationPath(slug)}/history?${new URLSearchParams(filters).toString()}`, actorId)).json() as Promise<MigrationHistoryOut>,
    migrationStateAsOf: async (actorId: string, slug: string, position: number) => (await get(`${migrationPath(slug)}/history/${position}`, actorId)).json() as Promise<MigrationStateAsOfOut>,
    /** The hash-chained JSON-lines export, as the control-plane answered it (headers included). */
    migrationHistoryExport: (actorId: string, slug: string) => get(`${migrationPath(slug)}/history.jsonl`, actorId),
    /** The migration's recipe snapshot against the current recipe (schemas/api/ResyncOut.v1.json). */
    migrationResync: async (actorId: string, slug: string) => (await get(`${migrationPath(slug)}/resync`, actorId)).json() as Promise<ResyncOut>,
    migrationReadiness: async (actorId: string, slug: string) => (await get(`${migrationPath(slug)}/readiness`, actorId)).json() as Promise<ReadinessOut>,
    resyncMigration: (actorId: string, slug: string, decision: 'adopt' | 'keep') => post<MigrationOut>(`${migrationPath(slug)}/resync`, { decision }, actorId),
    /** Lints and saves a recipe (admin): `key` to edit, `flavor` and `stem` to create; lint errors come back as a 422 with lines. */
    saveRecipe: (actorId: string, body: { yaml: string; key?: string; flavor?: string; stem?: string }) =>
      post<{ key: string; version: number; changed: boolean }>('/internal/recipes/save', body, actorId),
  };
}

const migrationPath = (slug: string) => `/internal/migrations/${encodeURIComponent(slug)}`;

export type ControlPlaneClient = ReturnType<typeof controlPlaneClient>;
