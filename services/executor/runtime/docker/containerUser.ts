import { ConfigError } from '#shared/config/config.ts';

export interface Account {
  uid: number;
  gid: number;
}

/** How the engine maps the accounts of its containers: a rootless one runs them inside its own user's namespace. */
export type EngineMapping = 'rootful' | 'rootless';

/** `name=rootless` in the Engine API's /info SecurityOptions: how dockerd and podman's API service say they run rootless. */
export function engineMapping(securityOptions: readonly string[] | undefined): EngineMapping {
  return (securityOptions ?? []).some((option) => option.split(',').includes('name=rootless')) ? 'rootless' : 'rootful';
}

/**
 * The account an instance's containers run as: always the account that owns the folders and the
 * 0600 configuration file Forja hands them, never the image's own user. The official image runs
 * as `odoo` (uid 101), which could read neither; its entrypoint would then fall back to
 * `--db_host db --db_password odoo` on the command line.
 * - Executor as root: the instance's own account (fi-<slug>), which owns them (tenantFolders.ts).
 * - Executor not root, rootful engine: the executor's own account, which wrote them.
 * - Executor not root, rootless engine: root inside, which that engine maps to its own user on the
 *   host, the executor's account when the executor runs it.
 * A root executor on a rootless engine is refused: the engine would map the instance's account to
 * a subordinate uid that owns nothing of the instance.
 */
export function containerAccount(executor: Account, tenant: Account | null, engine: EngineMapping): Account {
  if (tenant) {
    if (engine === 'rootless') {
      throw new ConfigError(
        'FORJA_DOCKER_SOCKET: the engine runs rootless, so it cannot run containers as the instances\' own accounts that the executor (root) gives their folders to. ' +
          'Point FORJA_DOCKER_SOCKET at a rootful engine, or run the executor as the rootless engine\'s user.',
      );
    }
    return tenant;
  }
  return engine === 'rootless' ? { uid: 0, gid: 0 } : executor;
}
