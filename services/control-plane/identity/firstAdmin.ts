import { randomUUID } from 'node:crypto';
import { readModelOf } from '#projections/readModel.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { hasActiveAdmin } from '#projections/users/users.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import type { StartProcess } from '#shared/platform/process.ts';
import { generatePassword } from '#shared/secrets/passwords.ts';
import { createSecretBox } from '#shared/secrets/secretBox.ts';
import { migrateSecrets, passwordStore } from '#shared/secrets/secrets.ts';
import { identityService } from './identityService.ts';

export const FIRST_ADMIN_EMAIL = 'admin@forja.local';

/**
 * On a platform with no active admin, registers `admin@forja.local` with a generated password and
 * prints both once. It asks the users read model, so it first waits for the projector to have
 * read the whole feed; with no projector running it says so and does nothing.
 */
export const startFirstAdminBootstrap: StartProcess = async (infra, config, logger) => {
  await migrateSecrets(infra.db);
  const readModel = readModelOf(infra.db);
  const head = await infra.store.headPosition();
  let message: string;
  try {
    await waitForPosition(readModel, 'users', head, { timeoutMs: 15_000 });
    if (await hasActiveAdmin(readModel)) {
      message = 'an active admin exists';
    } else {
      const password = generatePassword();
      const identity = identityService({
        store: infra.store,
        passwords: passwordStore(infra.db, createSecretBox(resolvePlatformSecrets(config).masterKey)),
        readModel,
      });
      const id = randomUUID();
      const metadata = { correlationId: id, causationId: id, actor: 'system', at: new Date().toISOString(), via: 'bootstrap' };
      const registered = await identity.register({ email: FIRST_ADMIN_EMAIL, role: 'admin', source: 'bootstrap', password }, metadata).catch(async () => {
        // The account exists but is not an active admin: make it one with a fresh password.
        await identity.reactivate(FIRST_ADMIN_EMAIL, metadata);
        await identity.changeRole(FIRST_ADMIN_EMAIL, 'admin', metadata);
        await identity.setPassword(FIRST_ADMIN_EMAIL, password, metadata);
        return undefined;
      });
      if (registered) await waitForPosition(readModel, 'users', registered.lastGlobalPosition ?? head, { timeoutMs: 15_000 });
      message = `created ${FIRST_ADMIN_EMAIL} with password ${password}  (shown once; change it with npm run user -- set-password)`;
    }
  } catch (error) {
    logger.warn({ err: error }, 'first admin not checked');
    message = 'not checked: the projector has not caught up (is it running?)';
  }
  return { name: 'first admin', describe: () => [message], stop: async () => undefined };
};
