import { migrateReadModel } from '#projections/migrations/index.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { timedEventStore } from '#shared/eventStore/timedEventStore.ts';
import { gitAccessFrom } from '#shared/git/gitAccess.ts';
import { pullSettingsFrom } from '#shared/net/pullSettings.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { listen } from '#shared/http/listen.ts';
import { createMetrics } from '#shared/http/metrics.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import type { StartProcess } from '#shared/platform/process.ts';
import { createSecretBox } from '#shared/secrets/secretBox.ts';
import { migrateSecrets, passwordStore } from '#shared/secrets/secrets.ts';
import { sshKeySecrets } from '#shared/secrets/sshKeySecrets.ts';
import { createControlPlaneApp } from './app.ts';
import type { ControlPlaneContext } from './context.ts';
import { appendDurationHistogram } from './http/operational.ts';
import { identityService } from './identity/identityService.ts';
import { instanceService } from './instances/instanceService.ts';
import { migrationRecipes } from './migrations/migrationRecipes.ts';
import { recipeBook } from './migrations/recipeBook.ts';
import { migrationResync } from './migrations/migrationResync.ts';
import { loadRecipeFiles } from '#services/migrations/recipes/recipeFiles.ts';
import { migrationService } from './migrations/migrationService.ts';
import { projectKeys } from './projects/projectKeys.ts';
import { projectService } from './projects/projectService.ts';
import { keyring } from './sshKeys/keyring.ts';

/** How long a command waits for the read models to show it before answering 503. */
const READ_YOUR_WRITES_TIMEOUT_MS = 5000;

/** Builds the control-plane's context from the shared infrastructure. */
export async function controlPlaneContext(...[infra, config, logger]: Parameters<StartProcess>): Promise<ControlPlaneContext> {
  await migrateSecrets(infra.db);
  await migrateReadModel(infra.db);
  const secrets = resolvePlatformSecrets(config);
  const metrics = createMetrics();
  const appendSeconds = appendDurationHistogram({ metrics });
  const store = timedEventStore(infra.store, (seconds) => appendSeconds.observe(seconds));
  const readModel = infra.db.withSchema('read_model');
  const gitAccess = gitAccessFrom(config);
  const projects = projectService(store, gitAccess);
  const keySecrets = sshKeySecrets(infra.db, createSecretBox(secrets.masterKey));
  const keys = keyring(store, keySecrets);
  const recipes = recipeBook(store);
  // The shipped recipes start the streams nobody has saved yet; an edited recipe stays as edited.
  const seeded = await recipes.seed(await loadRecipeFiles());
  if (seeded.length > 0) logger.info({ recipes: seeded }, 'seeded the shipped migration recipes');
  return {
    readModel,
    db: infra.db,
    store,
    identity: identityService({ store, passwords: passwordStore(infra.db, createSecretBox(secrets.masterKey)), readModel }),
    projects,
    keyring: keys,
    projectKeys: projectKeys(store, keys, keySecrets, gitAccess),
    instances: instanceService(store, projects, readModel, createFsBlobStore(config.FORJA_DATA_DIR)),
    recipes,
    migrations: migrationService(store, migrationRecipes(recipes), pullSettingsFrom(config)),
    resync: migrationResync(store, migrationRecipes(recipes)),
    blobs: createFsBlobStore(config.FORJA_DATA_DIR),
    secrets,
    metrics,
    logger: logger.child({ process: 'control-plane' }),
    async waitForProjections(position, projections) {
      if (position === undefined) return;
      for (const name of projections) await waitForPosition(readModel, name, position, { timeoutMs: READ_YOUR_WRITES_TIMEOUT_MS });
    },
  };
}

export const startControlPlaneProcess: StartProcess = async (infra, config, logger) => {
  const ctx = await controlPlaneContext(infra, config, logger);
  const listening = await listen(createControlPlaneApp(ctx), config.FORJA_HOST, config.FORJA_CONTROL_PLANE_PORT);
  return {
    name: 'control-plane',
    url: listening.url,
    describe: () => [`${listening.url}  JSON API /api/v1, docs ${listening.url}/docs`],
    stop: () => listening.close(),
  };
};
