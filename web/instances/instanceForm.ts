import { getProject, type ProjectDetailRow } from '#projections/projects/projectDetail.ts';
import { listProjects } from '#projections/projects/projectList.ts';
import { EDITIONS, ERP_VERSIONS, STAGES } from '#services/instances/domain/instance.ts';
import type { WebContext } from '../context.ts';
import { CommandRefused, type InstanceCreateBody } from '../controlPlaneClient.ts';

/** The create form's fields as the user typed them, kept for a re-render. */
export interface InstanceFormInput {
  name: string;
  project: string;
  stage: string;
  erp_version: string;
  edition: string;
  modules: string;
  git_repo: string;
  branch: string;
  clone_from: string;
  /** A migration artifact's id (`/instances/new?from_backup=`), and whose: ids are unique within a migration only. */
  from_backup: string;
  from_migration: string;
  /** `on` when the box was ticked, else empty. */
  demo_data: string;
}

export const FORM_FIELDS = ['name', 'project', 'stage', 'erp_version', 'edition', 'modules', 'git_repo', 'branch', 'clone_from', 'from_backup', 'from_migration', 'demo_data'] as const;

/** What a new form starts with. */
export const FORM_DEFAULTS: InstanceFormInput = {
  name: '',
  project: '',
  stage: 'development',
  erp_version: ERP_VERSIONS[0],
  edition: 'community',
  modules: '',
  git_repo: '',
  branch: 'main',
  clone_from: '',
  from_backup: '',
  from_migration: '',
  demo_data: '',
};

/** The choices the form's selects offer. */
export const FORM_CHOICES = { stages: STAGES, versions: ERP_VERSIONS, editions: EDITIONS };

/** The fields of a submitted form (urlencoded or multipart), strings only, at most 2 000 characters each. */
export function formInput(fields: Record<string, unknown>): InstanceFormInput {
  const input = { ...FORM_DEFAULTS };
  for (const field of FORM_FIELDS) {
    const value = fields[field];
    input[field] = typeof value === 'string' ? value.slice(0, 2000) : '';
  }
  return input;
}

/** Module names as typed: separated by commas or whitespace. */
export function moduleList(typed: string): string[] {
  return typed.split(/[\s,]+/).filter(Boolean);
}

/** The create command's body: modules split; an empty stage, edition, repository, branch or source left to the control-plane's defaults. */
export function createBody(input: InstanceFormInput): InstanceCreateBody {
  const trimmed = (value: string) => value.trim();
  return {
    name: trimmed(input.name),
    project: trimmed(input.project),
    erp_version: input.erp_version,
    modules: moduleList(input.modules),
    ...(input.stage ? { stage: input.stage } : {}),
    ...(input.edition ? { edition: input.edition } : {}),
    ...(trimmed(input.git_repo) ? { git_repo: trimmed(input.git_repo) } : {}),
    ...(trimmed(input.branch) ? { branch: trimmed(input.branch) } : {}),
    ...(trimmed(input.clone_from) ? { clone_from: trimmed(input.clone_from) } : {}),
    ...backupFields(input),
    ...(input.demo_data ? { demo_data: true } : {}),
  };
}

/** `from_backup` as a number with its migration; none for 0 or empty (the form refuses anything else before sending). */
function backupFields(input: InstanceFormInput): Pick<InstanceCreateBody, 'from_backup' | 'from_migration'> {
  const id = input.from_backup.trim();
  if (!/^[0-9]{1,12}$/.test(id) || Number(id) === 0) return {};
  return { from_backup: Number(id), ...(input.from_migration.trim() ? { from_migration: input.from_migration.trim() } : {}) };
}

/** The schema's pattern messages quote a regular expression; a form says what the field takes instead. */
function patternMessage(field: string, body: InstanceCreateBody, index: unknown): string | undefined {
  switch (field) {
    case 'modules':
      return `“${typeof index === 'number' ? body.modules?.[index] : ''}” is not a technical module name: a lowercase letter, then lowercase letters, digits or _`;
    case 'branch':
      return 'not a git branch name: letters, digits, ., _, / and -, not starting with - nor ending with . or /';
    case 'name':
    case 'project':
      return 'needs at least one letter or digit';
    case 'clone_from':
      return 'not an instance’s address (slug)';
    case 'from_migration':
      return 'not a migration’s address (slug)';
    default:
      return undefined;
  }
}

/**
 * The refusal's messages by form field (`loc: ['body', field, …]`); what belongs to no field the
 * form shows is under `_form`, a plain `{detail: "…"}` too.
 */
export function errorsByField(refusal: CommandRefused, body: InstanceCreateBody, fields: readonly string[] = FORM_FIELDS): Record<string, string> {
  if (typeof refusal.detail === 'string') return { _form: refusal.detail };
  const errors: Record<string, string> = {};
  for (const issue of refusal.detail) {
    const field = typeof issue.loc[1] === 'string' && fields.includes(issue.loc[1]) ? issue.loc[1] : '_form';
    const readable = issue.type === 'value_error.pattern' ? (patternMessage(field, body, issue.loc[2]) ?? issue.msg) : issue.msg;
    const message = field === '_form' && issue.loc.length > 1 ? `${issue.loc.slice(1).join('.')}: ${readable}` : readable;
    errors[field] = errors[field] ? `${errors[field]}; ${message}` : message;
  }
  return errors;
}

/** No project or instance has a control character in its name or slug, and PostgreSQL refuses a NUL in a query: typed text with one names nothing. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** The project a typed value names: its slug, or its name ignoring case; undefined when it does not exist yet. */
export async function projectNamed(ctx: WebContext, typed: string): Promise<ProjectDetailRow | undefined> {
  const value = typed.trim();
  if (!value || CONTROL_CHARACTER.test(value)) return undefined;
  const bySlug = await getProject(ctx.readModel, value);
  if (bySlug) return bySlug;
  const candidates = await listProjects(ctx.readModel, { q: value, pageSize: 50 });
  const match = candidates.rows.find((row) => row.name.toLowerCase() === value.toLowerCase());
  return match ? getProject(ctx.readModel, match.slug) : undefined;
}

/** The existing projects, for the form's datalist. */
export async function projectChoices(ctx: WebContext): Promise<Array<{ slug: string; name: string }>> {
  return (await listProjects(ctx.readModel, { pageSize: 500 })).rows.map(({ slug, name }) => ({ slug, name }));
}

/** The control-plane's refusal of a form (invalid, conflicting, or naming something unknown); anything else is a real error. */
export function refusalOf(error: unknown): CommandRefused {
  if (error instanceof CommandRefused && [404, 409, 422].includes(error.status)) return error;
  throw error;
}
