import fc from 'fast-check';
import { schemaArbitrary, type JsonSchema } from '#test/support/schemaArbitrary.ts';

/**
 * The shapes git hosts send (services/control-plane/hooks/pushPayload.ts), as JSON Schemas: the
 * hook has no schema file, it reads several hosts' payloads. Branches are mostly `main`, the
 * branch of the hook project's instance, so deliveries reach the rebuild.
 */
const ref: JsonSchema = { type: 'string', pattern: '^refs/(heads|tags)/(main|main|dev|[a-z]{1,8}(/[a-z]{1,4})?)$' };
const sha: JsonSchema = { type: 'string', pattern: '^([0-9a-f]{40}|0{40}|[0-9a-f]{1,8})$' };
const side: JsonSchema = { type: ['object', 'null'], required: ['type', 'name'], properties: { type: { enum: ['branch', 'tag', 'named_branch', 'bookmark'] }, name: { type: 'string', pattern: '^(main|dev|[a-z]{1,8})$' }, target: { type: 'object', properties: { hash: sha } } } };

const SHAPES: JsonSchema[] = [
  { type: 'object', required: ['ref', 'after'], properties: { ref, after: sha, before: sha, deleted: { type: 'boolean' } } },
  { type: 'object', required: ['object_kind', 'ref'], properties: { object_kind: { enum: ['push', 'tag_push', 'merge_request'] }, ref, after: sha, checkout_sha: { type: ['string', 'null'] } } },
  { type: 'object', required: ['push'], properties: { push: { type: 'object', required: ['changes'], properties: { changes: { type: 'array', maxItems: 5, items: { type: 'object', properties: { new: side, old: side } } } } } } },
  { type: 'object', required: ['changes'], properties: { changes: { type: 'array', maxItems: 5, items: { type: 'object', required: ['ref'], properties: { ref: { type: 'object', required: ['id'], properties: { id: ref } }, type: { enum: ['ADD', 'UPDATE', 'DELETE'] }, toHash: sha } } } } },
  { type: 'object', required: ['zen', 'hook_id'], properties: { zen: { type: 'string' }, hook_id: { type: 'integer' } } },
];

const noRefs = (name: string): JsonSchema => {
  throw new Error(`push payload schemas have no $ref (${name})`);
};

export const pushPayload: fc.Arbitrary<unknown> = fc.oneof(...SHAPES.map((shape) => schemaArbitrary(shape, noRefs)));

/** Each host's event header (or none), with the values it sends and some it does not. */
export const pushHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  fc.constant({}),
  fc.constantFrom('push', 'ping', 'issues', '').map((event) => ({ 'x-github-event': event })),
  fc.constantFrom('push', 'ping').map((event) => ({ 'x-gitea-event': event, 'x-github-event': event })),
  fc.constantFrom('Push Hook', 'Tag Push Hook', 'System Hook', 'Note Hook').map((event) => ({ 'x-gitlab-event': event })),
  fc.constantFrom('repo:push', 'repo:refs_changed', 'diagnostics:ping', 'pullrequest:created').map((event) => ({ 'x-event-key': event })),
  fc.string({ unit: 'binary-ascii', maxLength: 140 }).map((id) => ({ 'x-github-event': 'push', 'x-github-delivery': id.replace(/[^\x20-\x7e]/g, '') })),
);
