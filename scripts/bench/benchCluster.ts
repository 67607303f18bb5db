import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgresCluster, type PostgresCluster } from '#shared/local/postgresCluster.ts';
import { progress } from './workload.ts';

/**
 * Runs `body` on a brand-new private cluster in `dir` and stops the cluster afterwards, whether
 * `body` succeeds, throws, or the user presses Ctrl-C. Fresh every time: figures measured on a
 * cluster with leftovers from an earlier run (bloat, a warm cache, other tables) are not comparable.
 */
export async function withFreshCluster<T>(dir: string, database: string, body: (cluster: PostgresCluster) => Promise<T>): Promise<T> {
  await stopLeftover(dir, database);
  rmSync(dir, { recursive: true, force: true });

  progress(`starting a fresh PostgreSQL cluster in ${dir}`);
  const starting = startPostgresCluster(dir, database);
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= starting.then((cluster) => cluster.stop()).catch(() => undefined));

  const interrupted = (signal: NodeJS.Signals) => {
    progress(`${signal}: stopping the cluster`);
    void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    return await body(await starting);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    progress('stopping the cluster');
    await stop();
  }
}

/**
 * A run killed hard (SIGKILL, a closed terminal) leaves its postmaster running on this folder;
 * deleting the folder under it would leak a server. Connecting to it and stopping it is enough.
 */
async function stopLeftover(dir: string, database: string): Promise<void> {
  if (!existsSync(join(dir, 'pgdata', 'postmaster.pid'))) return;
  progress(`stopping a cluster left running in ${dir}`);
  const leftover = await startPostgresCluster(dir, database).catch(() => undefined);
  await leftover?.stop();
}
