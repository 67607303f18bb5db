import { getProject, type ProjectDetailRow } from '#projections/projects/projectDetail.ts';
import { listProjects } from '#projections/projects/projectList.ts';
import type { Role } from '#shared/auth/roles.ts';
import type { StartProcess } from '#shared/platform/process.ts';
import { startWebProcess } from '#web/webProcess.ts';
import { startTestPlatform, type TestPlatform } from './platform.ts';
import { webSession, type WebSession } from './webSession.ts';

/** One active user per role, plus a deactivated admin. */
export const USERS = {
  viewer: 'viewer@example.com',
  developer: 'dev@example.com',
  admin: 'admin@example.com',
  deactivated: 'gone@example.com',
} as const satisfies Record<Role | 'deactivated', string>;

export interface WebPlatform extends TestPlatform {
  web: string;
  controlPlane: string;
  /** A new visitor with no cookie. */
  visitor(): WebSession;
  /** A new session signed in through the login form as the user of `role`. */
  signedIn(role: Role): Promise<WebSession>;
  /** The project as the read model has it (web's commands answer once it shows them). */
  project(slug: string): Promise<ProjectDetailRow | undefined>;
  /** Names of the projects whose name contains `q`. */
  projectNames(q: string): Promise<string[]>;
}

/**
 * The projector, control-plane and web on a fresh database, with the users of `USERS`. Web
 * settings come from the environment when web starts, so `webEnv` is set just for its start.
 * `extra` starts more processes after web (an executor, …) on the same infrastructure;
 * `platformEnv` is the platform's configuration beyond the test defaults (FORJA_PULL_ALLOW_HOSTS, …).
 */
export async function startWebPlatform(webEnv: Record<string, string> = {}, extra: StartProcess[] = [], platformEnv: Record<string, string> = {}): Promise<WebPlatform> {
  const saved = Object.fromEntries(Object.keys(webEnv).map((name) => [name, process.env[name]]));
  Object.assign(process.env, webEnv);
  let platform: TestPlatform;
  try {
    platform = await startTestPlatform([startWebProcess, ...extra], platformEnv);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  await Promise.all([
    platform.createUser(USERS.viewer, 'viewer'),
    platform.createUser(USERS.developer, 'developer'),
    platform.createUser(USERS.admin, 'admin'),
    platform.createUser(USERS.deactivated, 'admin', undefined, false),
  ]);
  const web = platform.urls['web']!;
  const readModel = platform.infra.db.withSchema('read_model');
  return {
    ...platform,
    web,
    controlPlane: platform.urls['controlPlane']!,
    visitor: () => webSession(web),
    async signedIn(role) {
      const session = webSession(web);
      const res = await session.login(USERS[role]);
      if (res.status !== 303) throw new Error(`signing in as ${role} answered ${res.status}`);
      return session;
    },
    project: (slug) => getProject(readModel, slug),
    projectNames: async (q) => (await listProjects(readModel, { q, pageSize: 1000 })).rows.map((row) => row.name),
  };
}
