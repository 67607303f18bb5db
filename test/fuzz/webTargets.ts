import fc from 'fast-check';
import { ERP_VERSIONS, STAGES, STATUSES } from '#services/instances/domain/instance.ts';
import { authorizationTable, type RouteRule } from '#shared/auth/authorizationTable.ts';
import { schemaDocument } from '#shared/schemaValidator.ts';
import type { FuzzRequest } from '#test/support/fuzzClient.ts';
import { encodeForm, encodeMultipart, formMutation, multipartDamage, type FilePart, type FormFields, type FormMutation, type MultipartDamage } from '#test/support/formMutations.ts';
import { schemaArbitrary, type JsonSchema } from '#test/support/schemaArbitrary.ts';
import { pathSegment, queryString, type QueryParam } from '#test/support/urlArbitraries.ts';
import { SESSION_COOKIE } from '#test/support/webSession.ts';

export type Who = 'anonymous' | 'viewer' | 'developer' | 'admin';

/** A session the fuzz sends requests in: its cookie and its CSRF token. */
export interface FuzzSession {
  cookie: string;
  csrf: string;
}

export interface WebFixture {
  project: string;
  instance: string;
  sessions: Record<Who, FuzzSession>;
  /** A new visitor's session, for the routes that end or replace the one they run in (login, logout). */
  freshVisitor(): Promise<FuzzSession>;
}

export type CsrfVariant = 'field' | 'header' | 'none' | 'wrong' | 'multibyte' | 'another session' | 'last field';

export interface WebCase {
  who: Who;
  hx: boolean;
  params: Record<string, string>;
  query: string;
  /** POSTs only, from here on. */
  csrf?: CsrfVariant;
  multipart?: boolean;
  fields?: Record<string, string>;
  mutation?: FormMutation;
  damage?: MultipartDamage;
  files?: Array<{ field: string; filename: string; content: string }>;
}

export interface WebTarget {
  rule: RouteRule;
  name: string;
  weight: number;
  arbitrary: fc.Arbitrary<WebCase>;
}

const api = (name: string) => schemaDocument(`api/${name}.v1.json`) as JsonSchema;
const noRefs = (ref: string): JsonSchema => {
  throw new Error(`web form fields have no $ref (${ref})`);
};
/** A form field's values: generated from the JSON Schema property the control-plane checks it against, as text. */
const fieldFrom = (schema: string, property: string) => {
  const found = (api(schema).properties ?? {})[property];
  if (!found) throw new Error(`schemas/api/${schema} has no property ${property}`);
  return schemaArbitrary(found, noRefs).map((value) => (Array.isArray(value) ? value.join(', ') : value === null || value === undefined ? '' : String(value)));
};

const nextTargets = fc.constantFrom('/projects', '/instances?q=a', '//evil.example.com', 'https://evil.example.com/', '/\\evil', 'javascript:alert(1)', '', '/%0d%0aSet-Cookie:x=1');
const instanceFields = ['name', 'project', 'stage', 'erp_version', 'edition', 'modules', 'git_repo', 'branch'] as const;

/** The fields each form route reads (web/**: `req.body` and `formInput`), as generators. */
const FORMS: Record<string, Record<string, fc.Arbitrary<string>>> = {
  'POST /login': { email: fieldFrom('Credentials', 'email'), password: fieldFrom('Credentials', 'password'), next: nextTargets },
  'POST /logout': {},
  'POST /projects': { name: fieldFrom('ProjectCreate', 'name') },
  'POST /projects/:slug/repo': { git_repo: fieldFrom('ProjectRepository', 'git_repo') },
  'POST /projects/:slug/webhook/rotate': {},
  'POST /projects/:slug/delete': { confirm_name: fc.oneof(fieldFrom('ProjectDelete', 'confirm_name'), fc.constant('Fuzz Target')) },
  'POST /instances': { ...Object.fromEntries(instanceFields.map((field) => [field, fieldFrom('InstanceCreate', field)])), clone_from: fieldFrom('InstanceCreate', 'clone_from'), from_backup: fieldFrom('InstanceCreate', 'from_backup'), from_migration: fieldFrom('InstanceCreate', 'from_migration') },
  'POST /instances/upload': Object.fromEntries(instanceFields.map((field) => [field, fieldFrom('InstanceCreate', field)])),
  'POST /instances/purge': {},
  'POST /instances/:slug/action': { action: fieldFrom('InstanceAction', 'action') },
};

/** The query parameters each page reads, with the values it expects where it has a list. */
const PAGE_NUMBERS = ['1', '2', '0', '-1', '1.5', '1e308', '99999999999999999999', 'NaN', 'Infinity', '0x10'];
const QUERIES: Record<string, QueryParam[]> = {
  'GET /login': [{ name: 'next' }],
  'GET /projects': [{ name: 'q' }, { name: 'page', values: PAGE_NUMBERS }],
  'GET /instances': [{ name: 'q' }, { name: 'stage', values: STAGES }, { name: 'status', values: STATUSES }, { name: 'version', values: ERP_VERSIONS }, { name: 'page', values: PAGE_NUMBERS }],
  'GET /instances/new': [{ name: 'project' }, { name: 'clone_from' }, { name: 'from_backup', values: [...PAGE_NUMBERS, '1001', '1019'] }, { name: 'from_migration' }, { name: 'error' }],
  'GET /instances/upload': [{ name: 'project' }],
  'GET /instances/:slug/logs': [{ name: 'source', values: ['erp', 'db'] }],
  'GET /instances/:slug/logs/stream': [{ name: 'source', values: ['erp', 'db'] }],
  'GET /instances/:slug/logs/download': [{ name: 'source', values: ['erp', 'db'] }],
  'GET /auth/idp/callback': [{ name: 'code' }, { name: 'state' }, { name: 'error' }, { name: 'error_description' }],
};

/** Routes that end the session they run in, or start another: each case gets a new visitor. */
export const SESSION_ROUTES = new Set(['POST /login', 'POST /logout']);
export const STREAMING = new Set(['GET /instances/:slug/logs/stream', 'GET /migrations/:slug/runs/:number/logs/stream']);

const who = (rule: RouteRule): fc.Arbitrary<Who> => {
  if (SESSION_ROUTES.has(`${rule.method} ${rule.path}`)) return fc.constant('anonymous');
  const strongest: Who = rule.access === 'admin' ? 'admin' : rule.access === 'public' ? 'anonymous' : 'developer';
  return fc.oneof({ weight: 6, arbitrary: fc.constant(strongest) }, { weight: 3, arbitrary: fc.constantFrom<Who>('anonymous', 'viewer', 'developer', 'admin') });
};

const csrfVariant: fc.Arbitrary<CsrfVariant> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('field' as const) },
  { weight: 2, arbitrary: fc.constant('header' as const) },
  { weight: 3, arbitrary: fc.constantFrom<CsrfVariant>('none', 'wrong', 'multibyte', 'another session', 'last field') },
);

const DUMPS = ['PGDMP\u0001\u000e\u0000', '-- PostgreSQL database dump\nSELECT 1;\n', '\u001f\u008b\u0008gzip', '', '\u0000\u0001\u0002binary', 'COPY (SELECT 1) TO PROGRAM \'true\';'];
const uploadFiles = fc.array(
  fc.record({
    field: fc.constantFrom('dump', 'dump', 'filestore', 'other'),
    filename: fc.constantFrom('dump.sql', 'db.dump', '../../etc/passwd', '', 'a\u0000b.sql', 'é.zip', 'filestore.zip'),
    content: fc.oneof(fc.constantFrom(...DUMPS), fc.constant('PK\u0003\u0004not really a zip'), fc.string({ unit: 'binary', maxLength: 64 })),
  }),
  { maxLength: 3 },
);

/** Every web route of the authorization table: pages with their queries, forms with their fields. */
export function webTargets(fixture: Pick<WebFixture, 'project' | 'instance'>): WebTarget[] {
  return authorizationTable
    .filter((rule) => rule.process === 'web')
    .map((rule) => {
      const name = `${rule.method} ${rule.path}`;
      const known = rule.path.startsWith('/instances/') ? [fixture.instance, fixture.project] : [fixture.project, fixture.instance];
      const params = fc.record(Object.fromEntries([...rule.path.matchAll(/:(\w+)/g)].map(([, param]) => [param!, pathSegment(known)])));
      const base = { who: who(rule), hx: fc.boolean(), params, query: queryString(QUERIES[name] ?? []) };
      if (rule.method === 'GET') return { rule, name, weight: rule.path === '/health' ? 0.2 : 1, arbitrary: fc.record(base) };
      const form = FORMS[name] ?? {};
      const upload = name === 'POST /instances/upload';
      const arbitrary = fc.record({
        ...base,
        query: fc.constant(''),
        csrf: csrfVariant,
        multipart: upload ? fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) : fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        fields: fc.record(form),
        mutation: formMutation,
        damage: multipartDamage,
        files: upload ? uploadFiles : fc.constant([]),
      });
      // Sign-in hashes a password per case, behind the sign-in throttle: fewer cases than the other forms.
      return { rule, name, weight: name === 'POST /login' ? 0.5 : 3, arbitrary };
    });
}

const MULTIBYTE = 'é'.repeat(32);

/** The request a case stands for, in the session it names (or a new visitor's). */
export async function requestOf(target: WebTarget, plan: WebCase, fixture: WebFixture): Promise<FuzzRequest> {
  const path = target.rule.path.replace(/:(\w+)/g, (_match, param: string) => plan.params[param] ?? '') + plan.query;
  const session = SESSION_ROUTES.has(target.name) ? await fixture.freshVisitor() : fixture.sessions[plan.who];
  const headers: Record<string, string> = { cookie: `${SESSION_COOKIE}=${session.cookie}`, ...(plan.hx ? { 'hx-request': 'true' } : {}) };
  if (target.rule.method === 'GET') return { method: 'GET', path, headers, headersOnly: STREAMING.has(target.name) };
  const token = { field: session.csrf, header: session.csrf, none: undefined, wrong: 'x'.repeat(32), multibyte: MULTIBYTE, 'another session': fixture.sessions.admin.csrf, 'last field': session.csrf }[plan.csrf ?? 'field'];
  const fields: FormFields = Object.entries(plan.fields ?? {});
  if (token !== undefined && plan.csrf !== 'header') {
    if (plan.csrf === 'last field') fields.push(['_csrf', token]);
    else fields.unshift(['_csrf', token]);
  }
  if (plan.csrf === 'header') headers['x-csrf-token'] = session.csrf;
  const mutation = plan.mutation ?? { kind: 'valid' };
  const files: FilePart[] = (plan.files ?? []).map((file) => ({ field: file.field, filename: file.filename, type: 'application/octet-stream', content: Buffer.from(file.content, 'latin1') }));
  const raw = plan.multipart ? encodeMultipart(fields, files, mutation, plan.damage ?? 'none') : encodeForm(fields, mutation);
  return { method: 'POST', path, headers: { ...headers, ...raw.headers }, body: raw.body };
}
