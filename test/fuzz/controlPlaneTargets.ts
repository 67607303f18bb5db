import fc from 'fast-check';
import { userIdFor } from '#services/control-plane/identity/user.ts';
import { authorizationTable, type RouteRule } from '#shared/auth/authorizationTable.ts';
import type { FuzzRequest } from '#test/support/fuzzClient.ts';
import { jsonMutation, mutateJson, type JsonMutation, type RawBody } from '#test/support/jsonMutations.ts';
import { basic } from '#test/support/platform.ts';
import { schemaArbitrary, type JsonSchema } from '#test/support/schemaArbitrary.ts';
import { pathSegment, queryString, type QueryParam } from '#test/support/urlArbitraries.ts';
import { USERS } from '#test/support/webPlatform.ts';
import { pushHeaders, pushPayload } from './pushPayloads.ts';

/** What the control-plane fuzz works on: real slugs (so handlers run), the hook's path, the service token. */
export interface ControlPlaneFixture {
  project: string;
  instance: string;
  hookProject: string;
  hookToken: string;
  serviceToken: string;
}

/** One case, small enough to print: bodies are built from it (`requestOf`), never stored in it. */
export interface ControlPlaneCase {
  caller: string;
  method: string;
  params: Record<string, string>;
  query: string;
  value: unknown;
  mutation: JsonMutation;
  headers?: Record<string, string>;
  form?: boolean;
}

export interface ControlPlaneTarget {
  rule: RouteRule;
  name: string;
  weight: number;
  /** The route answers JSON (all but /metrics and the documentation page and assets). */
  json: boolean;
  arbitrary: fc.Arbitrary<ControlPlaneCase>;
}

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; schema?: { enum?: string[] } }>; requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** Mostly the route's own method; sometimes another, which the router must refuse cleanly. */
const methodOf = (method: string) => fc.oneof({ weight: 19, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') });

/** Who calls: mostly someone the route lets through, so the body reaches validation and the handler. */
function callers(rule: RouteRule): fc.Arbitrary<string> {
  switch (rule.access) {
    case 'public':
      return fc.constantFrom('none', 'admin');
    case 'hook':
      return fc.constant('none');
    case 'service':
      return fc.oneof(
        { weight: 6, arbitrary: fc.constant('service as admin') },
        { weight: 2, arbitrary: fc.constantFrom('service as developer', 'service as viewer') },
        { weight: 2, arbitrary: fc.constantFrom('service as nobody', 'service as deactivated', 'no token', 'wrong token', 'admin') },
        { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((actor) => `service as ${actor.replace(/[^\x20-\x7e]/g, '')}`) },
      );
    case 'authenticated':
    case 'viewer':
    case 'developer':
    case 'admin':
      return fc.oneof({ weight: 6, arbitrary: fc.constant('admin') }, { weight: 2, arbitrary: fc.constantFrom('developer', 'viewer') }, { weight: 1, arbitrary: fc.constantFrom('none', 'malformed', 'bearer') });
  }
}

function authHeaders(caller: string, fixture: ControlPlaneFixture): Record<string, string> {
  const service = (actor?: string) => ({ authorization: `Bearer ${fixture.serviceToken}`, ...(actor === undefined ? {} : { 'x-forja-actor': actor }) });
  switch (caller) {
    case 'none':
      return {};
    case 'admin':
    case 'developer':
    case 'viewer':
      return { authorization: basic(USERS[caller]) };
    case 'malformed':
      return { authorization: 'Basic !!!not base64' };
    case 'bearer':
      return { authorization: `Bearer ${fixture.serviceToken}` };
    case 'service as admin':
    case 'service as developer':
    case 'service as viewer':
    case 'service as deactivated':
      return service(userIdFor(USERS[caller.slice('service as '.length) as keyof typeof USERS]));
    case 'service as nobody':
      return service();
    case 'no token':
      return { 'x-forja-actor': userIdFor(USERS.admin) };
    case 'wrong token':
      return { authorization: `Bearer ${fixture.serviceToken.slice(1)}x`, 'x-forja-actor': userIdFor(USERS.admin) };
    default:
      return service(caller.slice('service as '.length));
  }
}

/** Every control-plane route of the authorization table, each with the body its OpenAPI operation names. */
export function controlPlaneTargets(openApi: OpenApi, fixture: ControlPlaneFixture): ControlPlaneTarget[] {
  const resolve = (ref: string) => {
    const schema = openApi.components.schemas[ref.replace('#/components/schemas/', '')];
    if (!schema) throw new Error(`the OpenAPI document has no ${ref}`);
    return schema;
  };
  return authorizationTable
    .filter((rule) => rule.process === 'control-plane')
    .map((rule) => {
      const name = `${rule.method} ${rule.path}`;
      if (rule.access === 'hook') return { rule, name, weight: 3, json: true, arbitrary: hookCases(fixture) };
      const operation = openApi.paths[rule.path.replace(/:(\w+)/g, '{$1}')]?.[rule.method.toLowerCase()];
      const schema = operation?.requestBody?.content['application/json']?.schema;
      const query: QueryParam[] = (operation?.parameters ?? []).filter((param) => param.in === 'query').map((param) => ({ name: param.name, ...(param.schema?.enum ? { values: param.schema.enum } : {}) }));
      const takesBody = rule.method === 'POST' || rule.method === 'PUT';
      const known = rule.path.includes('instances/:slug') ? [fixture.instance, fixture.project] : rule.path.includes(':file') ? ['init.js', 'swagger-ui.css', 'favicon-16x16.png'] : [fixture.project, fixture.instance];
      const params = Object.fromEntries([...rule.path.matchAll(/:(\w+)/g)].map(([, param]) => [param!, pathSegment(known)]));
      const value = schema ? schemaArbitrary(schema, resolve) : takesBody ? fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 })) : fc.constant(undefined);
      // The slow routes (a password hashed per call, a user registered) get fewer cases.
      const weight = rule.path === '/internal/auth/verify' ? 0.3 : schema ? 3 : takesBody ? 1 : rule.path.startsWith('/api/') ? 1 : 0.2;
      const arbitrary = fc.record({
        caller: callers(rule),
        method: methodOf(rule.method),
        params: fc.record(params),
        query: operation?.parameters?.some((param) => param.in === 'query') || !takesBody ? queryString(query) : fc.constant(''),
        value,
        mutation: takesBody ? jsonMutation : fc.constant<JsonMutation>({ kind: 'valid' }),
      });
      return { rule, name, weight, json: !['/metrics', '/docs', '/docs/assets/:file'].includes(rule.path), arbitrary };
    });
}

/** Push hook deliveries: the right token or not, any host's headers, JSON or GitHub's form encoding. */
function hookCases(fixture: ControlPlaneFixture): fc.Arbitrary<ControlPlaneCase> {
  return fc.record({
    caller: fc.constant('none'),
    method: methodOf('POST'),
    params: fc.record({
      project_slug: fc.oneof({ weight: 8, arbitrary: fc.constant(fixture.hookProject) }, { weight: 1, arbitrary: pathSegment([fixture.project]) }),
      token: fc.oneof({ weight: 8, arbitrary: fc.constant(fixture.hookToken) }, { weight: 1, arbitrary: pathSegment(['0'.repeat(64), fixture.hookToken.slice(1)]) }),
    }),
    query: fc.constant(''),
    value: pushPayload,
    mutation: jsonMutation,
    headers: pushHeaders,
    form: fc.boolean(),
  });
}

/** The request a case stands for. */
export function requestOf(target: ControlPlaneTarget, plan: ControlPlaneCase, fixture: ControlPlaneFixture): FuzzRequest {
  const path = target.rule.path.replace(/:(\w+)/g, (_match, param: string) => plan.params[param] ?? '');
  const withBody = plan.method !== 'GET' && plan.method !== 'OPTIONS' && (target.rule.method === 'POST' || target.rule.method === 'PUT');
  let raw: RawBody | undefined = withBody ? mutateJson(plan.value, plan.mutation) : undefined;
  if (raw && plan.form && raw.headers['content-type'] === 'application/json') {
    raw = { body: Buffer.from(`payload=${encodeURIComponent(raw.body.toString('utf8'))}`), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  return { method: plan.method, path: `${path}${plan.query}`, headers: { ...authHeaders(plan.caller, fixture), ...plan.headers, ...raw?.headers }, ...(raw ? { body: raw.body } : {}) };
}
