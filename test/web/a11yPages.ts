import type { Role } from '#shared/auth/roles.ts';

/**
 * One page the accessibility check opens (`accessibility.e2e.spec.ts`): axe at 1280 and 390 px,
 * no sideways scroll, focus rings, and html-validate on the HTML as served.
 */
export interface A11yPage {
  /** Names the page in failures and screenshots. */
  name: string;
  path: string;
  /** Who opens it; a signed-in admin unless said. */
  as?: Role | 'visitor';
  /** The process serving it; web unless said. */
  on?: 'web' | 'controlPlane' | 'padron';
  /** The status it answers with; 200 unless said. */
  status?: number;
  /** A form sent from the page at `path` (the session's CSRF token added): the answer is the page checked, such as a refused form shown again. */
  submit?: { action: string; fields: Record<string, string> };
}

/**
 * Every Forja page, one line each; `a11yFixture.ts` builds the records they show. The lower roles
 * open a few, so every role badge is checked.
 */
export const a11yPages: readonly A11yPage[] = [
  { name: 'login', path: '/login', as: 'visitor' },
  { name: 'sign-out question', path: '/logout' },
  { name: 'not found', path: '/projects/no-such-project', status: 404 },
  { name: 'projects', path: '/projects', as: 'viewer' },
  { name: 'project', path: '/projects/acme-norte' },
  { name: 'project, deletion refused', path: '/projects/acme-norte', status: 422, submit: { action: '/projects/acme-norte/delete', fields: { confirm_name: 'acme' } } },
  { name: 'SSH keyring', path: '/ssh-keys', as: 'developer' },
  { name: 'instances', path: '/instances', as: 'developer' },
  { name: 'new instance', path: '/instances/new', as: 'developer' },
  { name: 'new instance, refused', path: '/instances/new', as: 'developer', status: 422, submit: { action: '/instances', fields: { name: 'Bad Branch', project: 'acme-norte', erp_version: '18.0', modules: 'Not-A-Module', branch: '-oops' } } },
  { name: 'instance from a dump', path: '/instances/upload', as: 'developer' },
  { name: 'running instance', path: '/instances/acme-norte-main' },
  { name: 'failed instance', path: '/instances/acme-norte-broken' },
  { name: 'destroyed instance', path: '/instances/acme-norte-gone' },
  { name: 'instance logs', path: '/instances/acme-norte-main/logs' },
  { name: 'instance mail', path: '/instances/acme-norte-main/mail', as: 'viewer' },
  { name: 'instance mail, no mail yet', path: '/instances/acme-norte-broken/mail' },
  { name: 'caught message', path: '/instances/acme-norte-main/mail/20261123T100000000Z-0a0b0c0d' },
  { name: 'web shell', path: '/instances/acme-norte-main/shell', as: 'developer' },
  // No Prometheus runs for this walk: the page says it does not answer (the graphs are checked in test/monitoring).
  { name: 'instance monitoring', path: '/instances/acme-norte-main/monitoring' },
  { name: 'migrations', path: '/migrations' },
  { name: 'new migration', path: '/migrations/new' },
  { name: 'new migration, refused', path: '/migrations/new', status: 422, submit: { action: '/migrations/new', fields: { name: '', origin: '16.0', destination: '16.0', pull_url: 'http://127.0.0.1:9/acme.dump' } } },
  { name: 'migration at a gate', path: '/migrations/norte-prod' },
  { name: 'failed migration', path: '/migrations/sur-test' },
  { name: 'draft migration', path: '/migrations/oeste-draft' },
  { name: 'migration run', path: '/migrations/norte-prod/runs/1' },
  { name: 'migration run logs', path: '/migrations/norte-prod/runs/1/logs' },
  { name: 'migration history', path: '/migrations/norte-prod/history' },
  { name: 'migration as of an event', path: '/migrations/norte-prod/history/2' },
  { name: 'migration resync', path: '/migrations/norte-prod/resync' },
  { name: 'recipes', path: '/admin/recipes' },
  { name: 'new recipe', path: '/admin/recipes/new' },
  { name: 'recipe', path: '/admin/recipes/community/16.0-17.0/edit' },
  { name: 'recipe, refused', path: '/admin/recipes/community/16.0-17.0/edit', status: 422, submit: { action: '/admin/recipes/save', fields: { key: 'community.16.0-17.0', yaml: 'format: 1\nsteps: nope\n', action: 'save' } } },
  { name: 'control-plane API docs', path: '/docs', on: 'controlPlane', as: 'visitor' },
  { name: 'padrón API docs', path: '/docs/', on: 'padron', as: 'visitor' },
];
