import { ENGINES, FLAVORS, PURPOSES } from '#services/migrations/domain/migration.ts';
import { CommandRefused, type MigrationCreateBody, type MigrationEditBody } from '../controlPlaneClient.ts';

/** The versions a migration goes between, oldest first (schemas/api/MigrationCreate.v1.json). */
export const MIGRATION_VERSIONS = ['16.0', '17.0', '18.0', '19.0'] as const;

/** The choices the forms' selects offer; the engine's empty choice leaves it to the flavor. */
export const FORM_CHOICES = {
  versions: MIGRATION_VERSIONS,
  flavors: FLAVORS,
  purposes: PURPOSES,
  engineOptions: [['', 'By flavor'], ...ENGINES.map((engine) => [engine, engine])],
};

export const CREATE_FIELDS = ['name', 'origin', 'destination', 'flavor', 'engine', 'purpose', 'contract', 'notify_to', 'pull_url', 'project', 'code'] as const;
export const EDIT_FIELDS = ['origin', 'destination', 'flavor', 'engine', 'purpose', 'contract', 'notify_to', 'project', 'code'] as const;

export type MigrationFormInput = Record<(typeof CREATE_FIELDS)[number], string>;

/** What a new form starts with; an empty engine is the flavor's (openupgrade, or upgrade-service for enterprise). */
export const FORM_DEFAULTS: MigrationFormInput = { name: '', origin: '16.0', destination: '17.0', flavor: 'community', engine: '', purpose: 'test', contract: '', notify_to: '', pull_url: '', project: '', code: '' };

/** One line of the code field: `17.0: branch` or `17.0: branch@<40 hex commit>` (`=` works too). */
const CODE_LINE = /^(\S+)\s*[:=]\s*([^\s@]+)(?:@(\S+))?$/;

/**
 * The code field as typed, one version per line, into MigrationCreate's `code`. A line that is not
 * `version: branch[@commit]` throws CodeLineError naming it; what the control-plane judges (a
 * version the route does not reach, a bad branch or commit) comes back as its refusal.
 */
export function codeOf(typed: string): Record<string, { branch: string; commit?: string }> {
  const code: Record<string, { branch: string; commit?: string }> = {};
  for (const line of typed.split(/\r?\n/).map((text) => text.trim()).filter(Boolean)) {
    const match = CODE_LINE.exec(line);
    if (!match) throw new CodeLineError(line);
    code[match[1]!] = { branch: match[2]!, ...(match[3] ? { commit: match[3] } : {}) };
  }
  return code;
}

/** A code line the form cannot read: the form says which, before anything is sent. */
export class CodeLineError extends Error {
  override readonly name = 'CodeLineError';
  constructor(readonly line: string) {
    super(`“${line}” is not “version: branch” (or “version: branch@commit”), e.g. 17.0: 17.0`);
  }
}

/** MigrationOut's code as the field shows it, one version per line. */
export const codeText = (code: Record<string, { branch: string; commit: string | null }>): string =>
  Object.entries(code)
    .map(([version, { branch, commit }]) => `${version}: ${branch}${commit ? `@${commit}` : ''}`)
    .join('\n');

/** The submitted fields, strings only, at most 4 000 characters each; `present` says which were sent at all. */
export function formInput(fields: Record<string, unknown>, base: MigrationFormInput = FORM_DEFAULTS): { input: MigrationFormInput; present: Set<string> } {
  const input = { ...base };
  const present = new Set<string>();
  for (const field of CREATE_FIELDS) {
    const value = fields[field];
    if (typeof value !== 'string') continue;
    input[field] = value.slice(0, 4000);
    present.add(field);
  }
  return { input, present };
}

/** Addresses as typed: one per line, or separated by commas (spaces and semicolons too). */
export const addressList = (typed: string): string[] => typed.split(/[\s,;]+/).filter(Boolean);

/**
 * The create command's body: empty optional fields left to the control-plane's defaults. The
 * database comes from the typed address or the uploaded files; with neither the control-plane
 * refuses it, naming the other fields' problems too.
 */
export function createBody(input: MigrationFormInput, upload?: MigrationCreateBody['upload']): MigrationCreateBody {
  const contract = input.contract.trim();
  const pullUrl = input.pull_url.trim();
  return {
    name: input.name.trim(),
    origin: input.origin,
    destination: input.destination,
    ...(pullUrl ? { pull_url: pullUrl } : {}),
    ...(upload ? { upload } : {}),
    notify_to: addressList(input.notify_to),
    ...(input.flavor ? { flavor: input.flavor } : {}),
    ...(input.engine ? { engine: input.engine } : {}),
    ...(input.purpose ? { purpose: input.purpose } : {}),
    ...(contract ? { contract } : {}),
    ...(input.project.trim() ? { project: input.project.trim() } : {}),
    ...(input.code.trim() ? { code: codeOf(input.code) } : {}),
  };
}

/**
 * The edit command's body: the fields the form sent. An empty contract keeps the one stored (the
 * page never shows it whole); `clear_contract` removes it.
 */
export function editBody(input: MigrationFormInput, present: Set<string>, clearContract: boolean): MigrationEditBody {
  const body: Record<string, unknown> = {};
  for (const field of ['origin', 'destination', 'flavor', 'engine', 'purpose'] as const) if (present.has(field) && input[field] !== '') body[field] = input[field];
  if (clearContract) body['contract'] = null;
  else if (input.contract.trim()) body['contract'] = input.contract.trim();
  if (present.has('notify_to')) body['notify_to'] = addressList(input.notify_to);
  if (present.has('project')) body['project'] = input.project.trim() || null;
  if (present.has('code')) body['code'] = codeOf(input.code);
  return body as MigrationEditBody;
}

/** The schema's messages say "must match pattern …" or "must match format …"; a form says what the field takes. */
function readable(field: string, type: string, msg: string, typed: string | undefined): string {
  if (field === 'notify_to' && (type === 'value_error.format' || type === 'value_error.maxLength')) return `“${typed ?? ''}” is not an e-mail address`;
  if (field === 'decision' && type === 'value_error.enum') return 'choose approve or reject';
  if (type !== 'value_error.pattern') return msg;
  if (field === 'pull_url') return 'an http or https address of the dump (https://…)';
  if (field === 'name') return 'needs at least one letter or digit';
  if (field === 'reason') return 'say why the failed pre-flight may be overridden';
  if (field === 'project') return 'a project’s address (lower-case letters, digits and dashes)';
  if (field === 'code') return 'one “version: branch” per line; a branch has no spaces and does not start with “-”, a commit is 40 hex digits';
  return msg;
}

/**
 * The refusal's messages by form field (`loc: ['body', field, …]`); what belongs to no field of the
 * form is under `_form`, and so is a plain `{detail: "…"}`.
 */
export function errorsByField(refusal: CommandRefused, body: { notify_to?: string[] }, fields: readonly string[]): Record<string, string> {
  if (typeof refusal.detail === 'string') return { _form: refusal.detail };
  const errors: Record<string, string> = {};
  for (const issue of refusal.detail) {
    const named = issue.loc[1];
    const field = typeof named === 'string' && fields.includes(named) ? named : '_form';
    const typed = named === 'notify_to' && typeof issue.loc[2] === 'number' ? body.notify_to?.[issue.loc[2]] : undefined;
    const message = readable(String(named), issue.type, issue.msg, typed);
    const located = field === '_form' && issue.loc.length > 1 ? `${issue.loc.slice(1).join('.')}: ${message}` : message;
    errors[field] = errors[field] ? `${errors[field]}; ${located}` : located;
  }
  return errors;
}

/** A refusal in one line, for a message at the top of the page: the fields it names, in the form's words. */
export const refusalText = (refusal: CommandRefused): string => errorsByField(refusal, {}, [])['_form'] ?? refusal.message;

/** The control-plane's refusal of a command (invalid, conflicting, or naming something unknown); anything else is a real error. */
export function refusalOf(error: unknown): CommandRefused {
  if (error instanceof CommandRefused && [404, 409, 422].includes(error.status)) return error;
  throw error;
}
