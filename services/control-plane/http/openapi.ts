import { STAGES, STATUSES } from '#services/instances/domain/instance.ts';
import { MIGRATION_STATUSES } from '#services/migrations/domain/migration.ts';
import { schemaDocument } from '#shared/schemaValidator.ts';
import { derivedErrors, ERROR_TEXT, operationIdOf, pathParameters, TAGS, UNDESCRIBED, UNEXPECTED } from './openapiParts.ts';

interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path syntax (`{slug}`). */
  path: string;
  /** Made from the method and path (`operationIdOf`) unless given. */
  operationId?: string;
  summary: string;
  tag: 'projects' | 'instances' | 'migrations' | 'recipes' | 'users' | 'operations' | 'internal';
  security: 'basic' | 'service' | 'none';
  body?: string;
  ok: { status: number; schema?: string; array?: boolean; text?: string };
  /** Statuses beyond those every operation of its kind answers (`derivedErrors`). */
  errors?: number[];
}

/** Every JSON endpoint of the control-plane. A test checks this list against the routes. */
export const operations: readonly Operation[] = [
  { method: 'get', path: '/health', summary: 'Database reachable?', tag: 'operations', security: 'none', ok: { status: 200, schema: 'Health' }, errors: [503] },
  { method: 'get', path: '/metrics', summary: 'Prometheus metrics', tag: 'operations', security: 'none', ok: { status: 200, text: 'text/plain' } },
  { method: 'get', path: '/api/v1/me', summary: 'The authenticated user', tag: 'users', security: 'basic', ok: { status: 200, schema: 'UserOut' } },
  { method: 'get', path: '/api/v1/projects', summary: 'Projects, optionally filtered by name (`q`)', tag: 'projects', security: 'basic', ok: { status: 200, schema: 'ProjectOut', array: true } },
  { method: 'post', path: '/api/v1/projects', summary: 'Create a project from its name', tag: 'projects', security: 'basic', body: 'ProjectCreate', ok: { status: 201, schema: 'ProjectOut' }, errors: [409, 422] },
  { method: 'get', path: '/api/v1/projects/{slug}', summary: 'One project', tag: 'projects', security: 'basic', ok: { status: 200, schema: 'ProjectOut' }, errors: [404, 422] },
  { method: 'put', path: '/api/v1/projects/{slug}/repository', summary: 'Set the git repository instances inherit', tag: 'projects', security: 'basic', body: 'ProjectRepository', ok: { status: 200, schema: 'ProjectOut' }, errors: [404, 422] },
  { method: 'post', path: '/api/v1/projects/{slug}/webhook/rotate', summary: 'Give the project a new push hook token (in `webhook_path`); the old one is refused (403) from then on', tag: 'projects', security: 'basic', ok: { status: 200, schema: 'ProjectOut' }, errors: [403, 404, 422] },
  { method: 'get', path: '/api/v1/projects/{slug}/ssh-keys', summary: 'The project’s SSH keys (a key since deleted from the keyring is listed with `deleted: true`) and its pinned host keys', tag: 'projects', security: 'basic', ok: { status: 200, schema: 'ProjectKeysOut' }, errors: [404, 422] },
  { method: 'post', path: '/api/v1/projects/{slug}/ssh-keys', summary: 'Give the project a keyring key: clones, fetches and verification offer it', tag: 'projects', security: 'basic', body: 'ProjectSshKeyAdd', ok: { status: 200, schema: 'ProjectKeysOut' }, errors: [403, 404, 422] },
  { method: 'delete', path: '/api/v1/projects/{slug}/ssh-keys/{key_id}', summary: 'Take a key from the project; it stays in the keyring', tag: 'projects', security: 'basic', ok: { status: 200, schema: 'ProjectKeysOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/api/v1/projects/{slug}/repo/verify', summary: '`git ls-remote` of the repository and of every submodule (recursively) with the project’s keys; a first contact pins the host key, a changed one is refused', tag: 'projects', security: 'basic', ok: { status: 200, schema: 'RepoVerifyOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/api/v1/projects/{slug}/host-keys/forget', summary: 'Forget a pinned host key (admin): the next contact pins what the server presents', tag: 'projects', security: 'basic', body: 'HostKeyForget', ok: { status: 200, schema: 'ProjectKeysOut' }, errors: [403, 404, 422] },
  { method: 'get', path: '/api/v1/ssh-keys', summary: 'The shared SSH keyring (developer): name, type, fingerprint, public key, projects using each key', tag: 'projects', security: 'basic', ok: { status: 200, schema: 'SshKeyOut', array: true }, errors: [403] },
  { method: 'post', path: '/api/v1/ssh-keys', summary: 'Add a key (admin): `{name, generate: true}` or `{name, private_key, passphrase?}`; the private key is sealed and never shown again', tag: 'projects', security: 'basic', body: 'SshKeyCreate', ok: { status: 201, schema: 'SshKeyOut' }, errors: [403, 422] },
  { method: 'delete', path: '/api/v1/ssh-keys/{key_id}', summary: 'Delete a key (admin): its sealed private key is destroyed; projects that used it are left without it', tag: 'projects', security: 'basic', ok: { status: 204 }, errors: [403, 404, 422] },
  { method: 'get', path: '/api/v1/instances', summary: 'Instances, filtered by `stage` and `status_filter`', tag: 'instances', security: 'basic', ok: { status: 200, schema: 'InstanceOut', array: true }, errors: [422] },
  { method: 'post', path: '/api/v1/instances', summary: 'Create an instance (and its project when absent) and queue its provisioning; `from_backup` (beyond the spec) seeds it from a migration run’s backup or dump artifact', tag: 'instances', security: 'basic', body: 'InstanceCreate', ok: { status: 201, schema: 'InstanceOut' }, errors: [403, 409, 422] },
  { method: 'get', path: '/api/v1/instances/{slug}', summary: 'One instance with its current job', tag: 'instances', security: 'basic', ok: { status: 200, schema: 'InstanceOut' }, errors: [404, 422] },
  { method: 'post', path: '/api/v1/instances/{slug}/action', summary: 'start, restart, stop, rebuild or destroy', tag: 'instances', security: 'basic', body: 'InstanceAction', ok: { status: 200, schema: 'InstanceOut' }, errors: [403, 404, 409, 422] },
  { method: 'get', path: '/api/v1/migrations', summary: 'Migrations, filtered by `status_filter` and `search` (part of the name)', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'MigrationOut', array: true }, errors: [422] },
  { method: 'post', path: '/api/v1/migrations', summary: 'Create a migration as a draft, its database taken from `pull_url` (`upload` is for the web form and refused with 422); the route’s recipe is snapshotted', tag: 'migrations', security: 'basic', body: 'MigrationCreate', ok: { status: 201, schema: 'MigrationOut' }, errors: [403, 422] },
  { method: 'get', path: '/api/v1/migrations/{slug}', summary: 'One migration', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'MigrationOut' }, errors: [404, 422] },
  { method: 'patch', path: '/api/v1/migrations/{slug}', summary: 'Edit: a draft’s route, engine and purpose, and always the contract and notify_to; other fields sent are ignored and listed in `ignored`', tag: 'migrations', security: 'basic', body: 'MigrationEdit', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 422] },
  { method: 'delete', path: '/api/v1/migrations/{slug}', summary: 'Delete a migration with its runs, steps and artifacts, confirmed by its name', tag: 'migrations', security: 'basic', body: 'MigrationDelete', ok: { status: 204 }, errors: [403, 404, 422] },
  { method: 'post', path: '/api/v1/migrations/{slug}/run', summary: 'Start a run: from scratch, or resuming the failed run from its failed step (finished steps reused)', tag: 'migrations', security: 'basic', ok: { status: 201, schema: 'RunOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/api/v1/migrations/{slug}/run-anyway', summary: 'Run past a failed pre-flight (the reason and who asked are recorded)', tag: 'migrations', security: 'basic', body: 'RunAnyway', ok: { status: 201, schema: 'RunOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/api/v1/migrations/{slug}/pause', summary: 'Pause the live run: its step is killed; it resumes from its last checkpoint', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/api/v1/migrations/{slug}/resume', summary: 'Resume a paused run', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/api/v1/migrations/{slug}/stop', summary: 'Back to draft: a live run is killed, runs dropped, working databases and files removed', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 409, 422] },
  { method: 'get', path: '/api/v1/migrations/{slug}/runs', summary: 'The migration’s runs, most recent first', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'RunOut', array: true }, errors: [404, 422] },
  { method: 'get', path: '/api/v1/migrations/{slug}/runs/{number}', summary: 'One run with its steps', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'RunOut' }, errors: [404, 422] },
  { method: 'get', path: '/api/v1/migrations/{slug}/artifacts/{artifact_id}', summary: 'Download an artifact of a run (dump, backup, filestore, report), streamed; its sha256 in X-Content-SHA256', tag: 'migrations', security: 'basic', ok: { status: 200, text: 'application/octet-stream' }, errors: [404, 422] },
  { method: 'get', path: '/api/v1/migrations/{slug}/history', summary: 'Every event of the migration’s stream in order (not the read models), filtered by `run`, `actor` and `type`; a deleted migration’s for admins only', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'MigrationHistoryOut' }, errors: [404, 422] },
  { method: 'get', path: '/api/v1/migrations/{slug}/history.jsonl', summary: 'The history as JSON lines, hash-chained (`hash = sha256(prev_hash + RFC 8785 JSON of the event)`), for `npm run audit -- verify`; the last hash in X-Chain-Head', tag: 'migrations', security: 'basic', ok: { status: 200, text: 'application/x-ndjson' }, errors: [404, 422] },
  { method: 'get', path: '/api/v1/migrations/{slug}/history/{position}', summary: 'The migration as of its event at `position` (its version in the stream): the stream folded up to it by the domain’s decider', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'MigrationStateAsOfOut' }, errors: [404, 422] },
  { method: 'post', path: '/api/v1/migrations/{slug}/runs/{number}/report', summary: 'Generate the run’s PDF report now (a live run’s says it is in progress) and register it as a `report` artifact; download it at `download`', tag: 'migrations', security: 'basic', ok: { status: 201, schema: 'ArtifactOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/api/v1/migrations/{slug}/runs/{number}/resume', summary: 'Resolve the manual gate the run waits at (approve or reject, with an optional note)', tag: 'migrations', security: 'basic', body: 'GateDecision', ok: { status: 200, schema: 'RunOut' }, errors: [403, 404, 409, 422] },
  { method: 'get', path: '/api/v1/migrations/{slug}/resync', summary: 'How the migration’s recipe snapshot differs from the current recipe: step table, unified diff, and what adopting would keep of a failed run', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'ResyncOut' }, errors: [404, 422] },
  { method: 'post', path: '/api/v1/migrations/{slug}/resync', summary: 'Resync decision: `adopt` the current recipe (a resume keeps the unchanged steps before the first change) or `keep` the snapshot; recorded with the actor', tag: 'migrations', security: 'basic', body: 'ResyncDecision', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 409, 422] },
  { method: 'get', path: '/api/v1/migrations/{slug}/readiness', summary: 'The readiness report: per hop, each installed module found in the standard addons, the customer’s code or a submodule, or missing, with OpenUpgrade’s coverage and the verdict (ok, warning, blocks); made by the latest run’s coverage pre-flight', tag: 'migrations', security: 'basic', ok: { status: 200, schema: 'ReadinessOut' }, errors: [404, 422] },
  { method: 'get', path: '/internal/migrations/{slug}/readiness', summary: 'The readiness report, for the acting user', tag: 'internal', security: 'service', ok: { status: 200, schema: 'ReadinessOut' }, errors: [403, 404, 422] },
  { method: 'get', path: '/internal/migrations/{slug}/resync', summary: 'The resync view for the acting user', tag: 'internal', security: 'service', ok: { status: 200, schema: 'ResyncOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/resync', summary: 'A resync decision of the acting user', tag: 'internal', security: 'service', body: 'ResyncDecision', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 409, 422] },
  { method: 'get', path: '/api/v1/recipes', summary: 'Every migration recipe, broken ones included, linted with today’s rules, with the migrations that took each version', tag: 'recipes', security: 'basic', ok: { status: 200, schema: 'RecipeOut', array: true } },
  { method: 'get', path: '/api/v1/recipes/{flavor}/{stem}', summary: 'One recipe with its YAML', tag: 'recipes', security: 'basic', ok: { status: 200, schema: 'RecipeOut' }, errors: [404, 422] },
  { method: 'put', path: '/api/v1/recipes/{flavor}/{stem}', summary: 'Save a recipe (admin): created (version 1) or its next version; lint errors refuse it (422, line and column in `loc`); the same text saves nothing new', tag: 'recipes', security: 'basic', body: 'RecipeText', ok: { status: 200, schema: 'RecipeOut' }, errors: [403, 422] },
  { method: 'post', path: '/webhooks/git/{project_slug}/{token}', summary: 'Git push hook (token from the project): rebuild the instances on the pushed branch', tag: 'projects', security: 'none', ok: { status: 200, schema: 'GitHookResult' }, errors: [400, 403, 404, 413] },
  { method: 'post', path: '/internal/auth/verify', summary: 'Check an e-mail and password (web sign-in)', tag: 'internal', security: 'service', body: 'Credentials', ok: { status: 200, schema: 'UserOut' }, errors: [401, 403, 422] },
  { method: 'post', path: '/internal/users/oidc', summary: 'Find or register a user signed in through the identity provider', tag: 'internal', security: 'service', body: 'OidcUser', ok: { status: 200, schema: 'UserOut' }, errors: [403, 422] },
  { method: 'post', path: '/internal/projects', summary: 'Create a project for the acting user', tag: 'internal', security: 'service', body: 'ProjectCreate', ok: { status: 201 }, errors: [403, 409, 422] },
  { method: 'post', path: '/internal/projects/{slug}/repository', summary: 'Set a project repository for the acting user', tag: 'internal', security: 'service', body: 'ProjectRepository', ok: { status: 200 }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/projects/{slug}/ssh-keys/add', summary: 'Give the project a keyring key, for the acting user', tag: 'internal', security: 'service', body: 'ProjectSshKeyAdd', ok: { status: 200, schema: 'ProjectKeysOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/projects/{slug}/ssh-keys/{key_id}/remove', summary: 'Take a key from the project, for the acting user', tag: 'internal', security: 'service', ok: { status: 200, schema: 'ProjectKeysOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/projects/{slug}/repo/verify', summary: 'Verify the project’s repositories, for the acting user', tag: 'internal', security: 'service', ok: { status: 200, schema: 'RepoVerifyOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/projects/{slug}/host-keys/forget', summary: 'Forget a pinned host key, for the acting admin', tag: 'internal', security: 'service', body: 'HostKeyForget', ok: { status: 200, schema: 'ProjectKeysOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/ssh-keys', summary: 'Add a keyring key, for the acting admin', tag: 'internal', security: 'service', body: 'SshKeyCreate', ok: { status: 201, schema: 'SshKeyOut' }, errors: [403, 422] },
  { method: 'post', path: '/internal/ssh-keys/{key_id}/delete', summary: 'Delete a keyring key, for the acting admin', tag: 'internal', security: 'service', ok: { status: 200 }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/projects/{slug}/webhook/rotate', summary: 'Rotate a project’s push hook token for the acting user', tag: 'internal', security: 'service', ok: { status: 200 }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/projects/{slug}/delete', summary: 'Delete a project, confirmed by its name', tag: 'internal', security: 'service', body: 'ProjectDelete', ok: { status: 200 }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/instances', summary: 'Create an instance for the acting user', tag: 'internal', security: 'service', body: 'InstanceCreate', ok: { status: 201, schema: 'InstanceOut' }, errors: [403, 409, 422] },
  { method: 'post', path: '/internal/instances/purge', summary: 'Purge the records of destroyed instances', tag: 'internal', security: 'service', ok: { status: 200, schema: 'InstancePurged' }, errors: [403] },
  { method: 'post', path: '/internal/instances/{slug}/activity', summary: 'Record that the acting developer used one of the instance’s tools (activity for the idle sweep)', tag: 'internal', security: 'service', ok: { status: 200 }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/instances/{slug}/action', summary: 'An instance action for the acting user', tag: 'internal', security: 'service', body: 'InstanceAction', ok: { status: 200, schema: 'InstanceOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/internal/instances/{slug}/shell-sessions', summary: 'Record a web shell the acting developer opens (409 when the instance has nothing to open one in)', tag: 'internal', security: 'service', body: 'ShellSessionOpen', ok: { status: 201, schema: 'ShellSessionOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/internal/instances/{slug}/shell-sessions/{session_id}/close', summary: 'Record the end of a web shell (once; a session not open records nothing)', tag: 'internal', security: 'service', body: 'ShellSessionClose', ok: { status: 200, schema: 'ShellSessionOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/migrations', summary: 'Create a migration draft for the acting user, from `pull_url` or from an `upload` web already streamed to blob storage (its dump must be stored at the size given)', tag: 'internal', security: 'service', body: 'MigrationCreate', ok: { status: 201, schema: 'MigrationOut' }, errors: [403, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/edit', summary: 'Edit a migration for the acting user; fields the state does not let change are listed in `ignored`', tag: 'internal', security: 'service', body: 'MigrationEdit', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/run', summary: 'Start a run (or resume the failed one) for the acting user', tag: 'internal', security: 'service', ok: { status: 201, schema: 'RunOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/run-anyway', summary: 'Run past a failed pre-flight for the acting user', tag: 'internal', security: 'service', body: 'RunAnyway', ok: { status: 201, schema: 'RunOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/pause', summary: 'Pause the live run for the acting user', tag: 'internal', security: 'service', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/resume', summary: 'Resume a paused run for the acting user', tag: 'internal', security: 'service', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/runs/{number}/report', summary: 'Generate a run’s PDF report for the acting user and register it as an artifact', tag: 'internal', security: 'service', ok: { status: 201, schema: 'ArtifactOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/runs/{number}/resume', summary: 'Resolve the manual gate a run waits at, decided by the acting user', tag: 'internal', security: 'service', body: 'GateDecision', ok: { status: 200, schema: 'RunOut' }, errors: [403, 404, 409, 422] },
  { method: 'post', path: '/internal/recipes/save', summary: 'Save a recipe for the acting admin: `key` to edit, `flavor` and `stem` to create', tag: 'internal', security: 'service', body: 'RecipeSave', ok: { status: 200 }, errors: [403, 404, 409, 422] },
  { method: 'get', path: '/internal/migrations/{slug}/history', summary: 'A migration’s history for the acting user', tag: 'internal', security: 'service', ok: { status: 200, schema: 'MigrationHistoryOut' }, errors: [403, 404, 422] },
  { method: 'get', path: '/internal/migrations/{slug}/history.jsonl', summary: 'A migration’s hash-chained history export for the acting user', tag: 'internal', security: 'service', ok: { status: 200, text: 'application/x-ndjson' }, errors: [403, 404, 422] },
  { method: 'get', path: '/internal/migrations/{slug}/history/{position}', summary: 'A migration as of one of its events, for the acting user', tag: 'internal', security: 'service', ok: { status: 200, schema: 'MigrationStateAsOfOut' }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/delete', summary: 'Delete a migration, confirmed by its name', tag: 'internal', security: 'service', body: 'MigrationDelete', ok: { status: 200 }, errors: [403, 404, 422] },
  { method: 'post', path: '/internal/migrations/{slug}/stop', summary: 'Take a migration back to draft for the acting user', tag: 'internal', security: 'service', ok: { status: 200, schema: 'MigrationOut' }, errors: [403, 404, 409, 422] },
];

const HISTORY_FILTERS = [
  { name: 'run', in: 'query', required: false, schema: { type: 'integer', minimum: 1 }, description: 'only the events of this run' },
  { name: 'actor', in: 'query', required: false, schema: { type: 'string', maxLength: 254 }, description: 'a user’s e-mail or id, or `system`' },
  { name: 'type', in: 'query', required: false, schema: { type: 'string', pattern: '^[A-Za-z]{1,100}$' }, description: 'an event type, such as `MigrationRunRequested`' },
];

const QUERY: Record<string, unknown[]> = {
  '/api/v1/migrations/{slug}/history': HISTORY_FILTERS,
  '/internal/migrations/{slug}/history': HISTORY_FILTERS,
  '/api/v1/projects': [{ name: 'q', in: 'query', required: false, schema: { type: 'string' } }],
  '/api/v1/migrations': [
    { name: 'status_filter', in: 'query', required: false, schema: { type: 'string', enum: ['', ...MIGRATION_STATUSES], default: '' } },
    { name: 'search', in: 'query', required: false, schema: { type: 'string', maxLength: 200, default: '' }, description: 'part of the name, any case' },
  ],
  '/api/v1/instances': [
    { name: 'stage', in: 'query', required: false, schema: { type: 'string', enum: ['', ...STAGES], default: '' } },
    { name: 'status_filter', in: 'query', required: false, schema: { type: 'string', enum: ['', ...STATUSES], default: '' } },
  ],
};

/** Answered by every operation (`default`, 422) though no operation names them as its schema. */
const ERROR_SCHEMAS = ['Error', 'ValidationError'];

/** JSON Schema draft-07 files become OpenAPI 3.1 components (3.1 speaks JSON Schema). */
function component(name: string): Record<string, unknown> {
  const { $schema: _schema, $id: _id, ...schema } = schemaDocument(`api/${name}.v1.json`);
  // A file's own `#/definitions/…` becomes a pointer into its component, where the definitions now are.
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/definitions/', `"$ref":"#/components/schemas/${name}/definitions/`)) as Record<string, unknown>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

/** The OpenAPI 3.1 document of the control-plane, generated from `schemas/api`. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const query = op.method === 'get' ? (QUERY[op.path] ?? []) : [];
    const okBody = op.ok.text ? { content: { [op.ok.text]: { schema: { type: 'string' } } } } : op.ok.schema ? json(op.ok.array ? { type: 'array', items: ref(op.ok.schema) } : ref(op.ok.schema)) : op.ok.status === 204 ? {} : json(UNDESCRIBED);
    const responses: Record<string, unknown> = { [op.ok.status]: { description: 'OK', ...okBody } };
    for (const status of [...new Set([...derivedErrors(op), ...(op.errors ?? [])])].sort((a, b) => a - b)) {
      responses[status] = { description: ERROR_TEXT[status] ?? 'Refused', ...json(ref(status === 422 ? 'ValidationError' : status === 503 && op.path === '/health' ? 'Health' : 'Error')) };
    }
    responses['default'] = { description: UNEXPECTED, ...json(ref('Error')) };
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      operationId: op.operationId ?? operationIdOf(op.method, op.path),
      summary: op.summary,
      tags: [op.tag],
      parameters: [...pathParameters(op.path), ...query],
      ...(op.body ? { requestBody: { required: true, ...json(ref(op.body)) } } : {}),
      responses,
      security: op.security === 'none' ? [] : [{ [op.security]: [] }],
    };
  }
  const used = new Set(operations.flatMap((op) => [op.body, op.ok.schema]).filter((name): name is string => name !== undefined));
  return {
    openapi: '3.1.0',
    info: { title: 'Forja control-plane', version: '0.1.0', description: 'Projects, instances and migrations of Forja. `/internal/*` is for the web service only.' },
    servers: [{ url: '/', description: 'This control-plane' }],
    tags: TAGS.filter((tag) => operations.some((op) => op.tag === tag.name)),
    paths,
    components: {
      schemas: Object.fromEntries([...new Set([...ERROR_SCHEMAS, ...used])].sort().map((name) => [name, component(name)])),
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'Your e-mail and password' },
        service: { type: 'http', scheme: 'bearer', description: 'FORJA_SERVICE_TOKEN, with X-Forja-Actor naming the user' },
      },
    },
  };
}
