/**
 * Git hosts' push hooks, read without I/O: which branches got new commits. GitHub, Gitea, Forgejo
 * and Gogs send GitHub's shape; GitLab its own (`object_kind`); Bitbucket Cloud `push.changes`,
 * Bitbucket Data Center `changes` with `ref`.
 */

export type GitHost = 'github' | 'gitea' | 'forgejo' | 'gogs' | 'gitlab' | 'bitbucket' | 'bitbucket-server' | 'generic';

/**
 * What a hook delivery asks for. `pushes`: the branches that now have a head to build, each once,
 * in payload order. `ignored`: the refs pushed that build nothing (tags, deletions, other refs).
 * `event: 'ping'` is a host checking the hook (GitHub's ping, Bitbucket Data Center's test): answer
 * 200 and build nothing.
 */
export interface PushPayload {
  host: GitHost;
  event: 'push' | 'ping';
  /** `head`: the commit the branch now points at, when the host says it (a full hex sha). */
  pushes: Array<{ branch: string; head?: string }>;
  ignored: number;
}

/** A delivery that is not a push hook Forja can read; its message says why (the route answers 400). */
export class PushPayloadError extends Error {
  override readonly name = 'PushPayloadError';
}

/**
 * Branches one delivery may push. Each costs the rebuilds of its instances; a crafted Bitbucket
 * delivery of 40,000 changes kept the control-plane busy for 17 s. A host sends one delivery per
 * ref (GitHub, GitLab, Gitea) or the refs of one `git push`, far fewer than this.
 */
export const MAX_BRANCHES_PER_DELIVERY = 100;

/** A delivery pushing more than MAX_BRANCHES_PER_DELIVERY branches: refused whole (the route answers 413), nothing rebuilt. */
export class TooManyBranchesError extends PushPayloadError {
  constructor() {
    super(`the delivery pushes more than ${MAX_BRANCHES_PER_DELIVERY} branches; Forja takes at most ${MAX_BRANCHES_PER_DELIVERY} per delivery: push fewer branches at once, or rebuild the instances by hand`);
  }
}

type Headers = Readonly<Record<string, string | readonly string[] | undefined>>;
type Json = Record<string, unknown>;

/** Reads a delivery: the host from its event header (then from the body's shape), the pushed branches from the body. */
export function parsePushPayload(headers: Headers, body: unknown): PushPayload {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new PushPayloadError('the payload is not a JSON object');
  const payload = body as Json;
  const header = (name: string) => headerValue(headers, name);
  // Gitea and Forgejo also send GitHub's and Gogs' headers, so the most specific name wins.
  for (const [host, name] of [['forgejo', 'X-Forgejo-Event'], ['gitea', 'X-Gitea-Event'], ['gogs', 'X-Gogs-Event'], ['github', 'X-GitHub-Event']] as const) {
    const event = header(name);
    if (event === undefined) continue;
    if (event === 'ping') return { host, event: 'ping', pushes: [], ignored: 0 };
    if (event !== 'push') throw notAPush(`${name} ${event}`);
    return refUpdates(host, [githubUpdate(payload)]);
  }
  const gitlab = header('X-Gitlab-Event');
  if (gitlab !== undefined) {
    if (!['Push Hook', 'Tag Push Hook', 'System Hook'].includes(gitlab)) throw notAPush(`X-Gitlab-Event ${gitlab}`);
    return refUpdates('gitlab', [gitlabUpdate(payload)]);
  }
  const eventKey = header('X-Event-Key');
  if (eventKey !== undefined) {
    if (eventKey === 'diagnostics:ping') return { host: 'bitbucket-server', event: 'ping', pushes: [], ignored: 0 };
    if (eventKey === 'repo:push') return refUpdates('bitbucket', bitbucketCloudUpdates(payload));
    if (eventKey === 'repo:refs_changed') return refUpdates('bitbucket-server', bitbucketServerUpdates(payload));
    throw notAPush(`X-Event-Key ${eventKey}`);
  }
  if (typeof payload['object_kind'] === 'string') return refUpdates('gitlab', [gitlabUpdate(payload)]);
  if (isObject(payload['push'])) return refUpdates('bitbucket', bitbucketCloudUpdates(payload));
  if (Array.isArray(payload['changes'])) return refUpdates('bitbucket-server', bitbucketServerUpdates(payload));
  if ('zen' in payload && 'hook_id' in payload) return { host: 'github', event: 'ping', pushes: [], ignored: 0 };
  if ('ref' in payload) return refUpdates('generic', [githubUpdate(payload)]);
  throw new PushPayloadError('not a push hook: no known event header (X-GitHub-Event, X-Gitlab-Event, X-Gitea-Event, X-Event-Key…) and no ref in the payload');
}

/**
 * The delivery's body as an object: JSON (`application/json`, `…+json`), or a form with the JSON in
 * its `payload` field (`application/x-www-form-urlencoded`, GitHub's and Gitea's form option).
 */
export function decodeHookBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const text = raw?.toString('utf8') ?? '';
  if (text.trim() === '') throw new PushPayloadError('the body is empty');
  if (type === 'application/x-www-form-urlencoded') {
    const payload = new URLSearchParams(text).get('payload');
    if (payload === null) throw new PushPayloadError('the form body has no payload field');
    return parseJson(payload, 'the form field payload');
  }
  if (type === 'application/json' || type.endsWith('+json')) return parseJson(text, 'the body');
  throw new PushPayloadError(`the body must be application/json or application/x-www-form-urlencoded with a payload field, not ${type || 'untyped'}`);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new PushPayloadError(`${what} is not valid JSON (${(error as Error).message})`);
  }
}

/** One ref the push moved: its full name, whether it was deleted, and its new commit when the payload has one. */
interface RefUpdate {
  ref: string;
  deleted: boolean;
  head?: string;
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const headOf = (value: unknown): { head?: string } => (typeof value === 'string' && SHA.test(value) && !ZERO_SHA.test(value) ? { head: value } : {});

function refUpdates(host: GitHost, updates: RefUpdate[]): PushPayload {
  // A branch pushed twice in one delivery keeps its first place (Map order) and its last head.
  const pushes = new Map<string, PushPayload['pushes'][number]>();
  let ignored = 0;
  for (const { ref, deleted, head } of updates) {
    const branch = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
    if (branch === '') throw new PushPayloadError(`the payload's ref names no branch: ${ref}`);
    if (deleted || branch === undefined) ignored += 1;
    else {
      const known = pushes.get(branch);
      if (!known) pushes.set(branch, { branch, ...(head ? { head } : {}) });
      else if (head) known.head = head;
      if (pushes.size > MAX_BRANCHES_PER_DELIVERY) throw new TooManyBranchesError();
    }
  }
  return { host, event: 'push', pushes: [...pushes.values()], ignored };
}

const ZERO_SHA = /^0+$/;

function githubUpdate(payload: Json): RefUpdate {
  const ref = requiredRef(payload['ref']);
  const after = payload['after'];
  return { ref, deleted: payload['deleted'] === true || (typeof after === 'string' && ZERO_SHA.test(after)), ...headOf(after) };
}

function gitlabUpdate(payload: Json): RefUpdate {
  const kind = payload['object_kind'] ?? payload['event_name'];
  if (kind !== 'push' && kind !== 'tag_push') throw notAPush(`GitLab object_kind ${String(kind)}`);
  const ref = requiredRef(payload['ref']);
  const after = payload['after'];
  return { ref, deleted: (typeof after === 'string' && ZERO_SHA.test(after)) || payload['checkout_sha'] === null, ...headOf(after) };
}

/** Bitbucket Cloud: `push.changes[]`, each with `new` (null when deleted) and `old`, typed `branch` or `tag`. */
function bitbucketCloudUpdates(payload: Json): RefUpdate[] {
  const changes = isObject(payload['push']) ? payload['push']['changes'] : undefined;
  if (!Array.isArray(changes)) throw new PushPayloadError('the Bitbucket payload has no push.changes list');
  return changes.map((change: unknown, index) => {
    if (!isObject(change)) throw new PushPayloadError(`push.changes[${index}] is not an object`);
    const now = change['new'];
    if (now === null || now === undefined) return { ref: refOf(change['old'], index), deleted: true };
    return { ref: refOf(now, index), deleted: false, ...headOf(isObject(now) && isObject(now['target']) ? now['target']['hash'] : undefined) };
  });
}

function refOf(side: unknown, index: number): string {
  if (!isObject(side) || typeof side['name'] !== 'string' || typeof side['type'] !== 'string') {
    throw new PushPayloadError(`push.changes[${index}] has no branch or tag with a type and a name`);
  }
  // `branch` (and Mercurial's `named_branch`) build; `tag`, `annotated_tag`, `bookmark` do not.
  return side['type'] === 'branch' ? `refs/heads/${side['name']}` : `refs/tags/${side['name']}`;
}

/** Bitbucket Data Center: `changes[]` with `ref.id` (`refs/heads/…`) and `type` ADD, UPDATE or DELETE. */
function bitbucketServerUpdates(payload: Json): RefUpdate[] {
  const changes = payload['changes'];
  if (!Array.isArray(changes)) throw new PushPayloadError('the Bitbucket payload has no changes list');
  return changes.map((change: unknown, index) => {
    const ref = isObject(change) && isObject(change['ref']) ? change['ref']['id'] : undefined;
    if (typeof ref !== 'string') throw new PushPayloadError(`changes[${index}] has no ref id`);
    return { ref, deleted: (change as Json)['type'] === 'DELETE', ...headOf((change as Json)['toHash']) };
  });
}

function requiredRef(ref: unknown): string {
  if (typeof ref !== 'string' || ref === '') throw new PushPayloadError('the payload has no ref');
  return ref;
}

function notAPush(what: string): PushPayloadError {
  return new PushPayloadError(`not a push: ${what}; configure the hook for push events only`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function headerValue(headers: Headers, name: string): string | undefined {
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  const value = typeof entry === 'string' ? entry : entry?.[0];
  return value?.trim();
}
