import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startNatsServer } from '../../services/shared/local/natsServer.ts';
import { onTeardown } from './teardown.ts';

const dataDir = fileURLToPath(new URL('../../.data/test-nats', import.meta.url));
let started: Promise<string> | undefined;

/**
 * The URL of one private nats-server shared by the whole test run, started on first use with a
 * fresh store under `.data/test-nats` and stopped by the root teardown hook.
 */
export function testNatsUrl(): Promise<string> {
  started ??= (async () => {
    rmSync(dataDir, { recursive: true, force: true }); // last run's streams must not leak in
    const server = await startNatsServer({ dataDir });
    onTeardown(server.stop);
    return server.url;
  })();
  return started;
}
