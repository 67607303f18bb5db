import { runTeardown } from './teardown.ts';

/** Mocha root hooks: whatever a test started (Postgres, nats-server) is stopped at the end. */
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await runTeardown();
  },
};
