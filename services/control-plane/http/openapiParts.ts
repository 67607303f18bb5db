import { authorizationTable } from '#shared/auth/authorizationTable.ts';

/** What the OpenAPI builder needs to know of an operation (openapi.ts's `Operation`). */
interface OperationShape {
  method: string;
  path: string;
  security: 'basic' | 'service' | 'none';
  body?: string;
}

export const ERROR_TEXT: Record<number, string> = {
  400: 'Unreadable push payload',
  401: 'Missing or wrong credentials',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported body encoding or charset',
  422: 'Validation error',
  503: 'Unavailable',
};

/**
 * The `default` answer: what any operation may answer beyond its listed statuses. (Worded without
 * " at ": the fuzz tests' stack-trace check backtracks on every one of them across the whole
 * one-line document, which repeats this text for each operation.)
 */
export const UNEXPECTED =
  'Any other answer: 500 for an unexpected error (logged, its text never sent); 503 with Retry-After when a change was saved but the read models do not show it yet; 409 with Retry-After when too many requests changed the same record in the same moment.';

/** The body of a success whose operation names no schema (web's internal commands): JSON, not described further. */
export const UNDESCRIBED = { type: 'object', description: 'What web reads of the result (such as the new `slug`); not described further' };

export const TAGS = [
  { name: 'projects', description: 'Projects, their repository, push hook and SSH keys' },
  { name: 'instances', description: 'ERP instances and their jobs' },
  { name: 'migrations', description: 'Database migrations between ERP versions, their runs, artifacts and history' },
  { name: 'recipes', description: 'The recipes migrations copy' },
  { name: 'users', description: 'The signed-in user' },
  { name: 'operations', description: 'Health and metrics' },
  { name: 'internal', description: 'For the web service only (service token, acting for a user)' },
];

/**
 * Statuses every operation of its kind answers, so no list can forget them: 401 behind
 * credentials; 403 where the authorization table asks for more than a viewer (or acts for a
 * user, or checks a hook token); 413, 415 and 422 (malformed JSON) where a JSON body is read.
 */
export function derivedErrors(op: OperationShape): number[] {
  const expressPath = op.path.replace(/\{(\w+)\}/g, ':$1');
  const rule = authorizationTable.find((candidate) => candidate.process === 'control-plane' && candidate.method === op.method.toUpperCase() && candidate.path === expressPath);
  const refusesRoles = rule !== undefined && (rule.access === 'developer' || rule.access === 'admin' || rule.access === 'hook' || (rule.access === 'service' && rule.actor !== undefined));
  return [...(op.security === 'none' ? [] : [401]), ...(refusesRoles ? [403] : []), ...(op.body ? [413, 415, 422] : [])];
}

const SLUG = { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' };

/** Path parameters by name; a name not here is documented as a plain string. */
const PATH_PARAMETERS: Record<string, { schema: Record<string, unknown>; description?: string }> = {
  slug: { schema: SLUG },
  project_slug: { schema: SLUG, description: 'the project’s slug' },
  token: { schema: { type: 'string' }, description: 'the project’s push hook token: the last part of its `webhook_path`' },
  number: { schema: { type: 'integer', minimum: 1 }, description: 'the run’s number' },
  artifact_id: { schema: { type: 'integer', minimum: 1 } },
  position: { schema: { type: 'integer', minimum: 1 }, description: 'the event’s version in the stream' },
  flavor: { schema: { type: 'string', enum: ['community', 'enterprise'] } },
  stem: { schema: { type: 'string', pattern: '^[0-9]{1,3}\\.0-[0-9]{1,3}\\.0$' }, description: '`<origin>-<destination>`' },
  key_id: { schema: { type: 'integer', minimum: 1 }, description: 'the keyring key’s id' },
};

/** One parameter for each `{name}` of the path, in order. */
export function pathParameters(path: string): Record<string, unknown>[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, ...(PATH_PARAMETERS[name!] ?? { schema: { type: 'string' } }) }));
}

/** `getProjectsBySlug` for `GET /api/v1/projects/{slug}`: the method, then the path's words (`/api/v1` left out). */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/v1(?=\/)/, '')
    .replace(/\{(\w+)\}/g, 'by_$1')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}
