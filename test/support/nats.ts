import { startNatsServer } from '#shared/local/natsServer.ts';
import { runDir } from './runDir.ts';
import { onTeardown } from './teardown.ts';

let started: Promise<string> | undefined;

/**
 * The URL of one private nats-server shared by the whole test run, started on first use with a
 * fresh store in its own temporary folder, stopped by the root teardown hook.
 */
export function testNatsUrl(): Promise<string> {
  started ??= (async () => {
    const server = await startNatsServer({ dataDir: runDir('test-nats') });
    onTeardown(server.stop);
    return server.url;
  })();
  return started;
}
