import { setTimeout as sleep } from 'node:timers/promises';
import { done, fail } from '#shared/workflow/stepOutcome.ts';
import type { InstanceSettings } from '#services/instances/domain/instance.ts';
import type { MigrationStep } from '../migrationStepContext.ts';

/** The project the working instances of migrations belong to. */
export const MIGRATION_PROJECT = 'migrations';

/**
 * A working instance of the result, to look at before going live: a copy of the working database
 * and filestore on the destination version, provisioned as any instance is. Its slug is recorded in
 * the migration first (a stop destroys what was recorded, nothing else). The step waits until it
 * runs (or says why it failed); a retry finds the instance it already asked for. An instance of
 * that slug that this run did not ask for fails the step and is left alone.
 */
export const instance: MigrationStep = async (context) => {
  const { migration, run } = context;
  const slug = await context.instances.reserve();
  const settings: InstanceSettings = {
    slug,
    name: `${migration.name} (run ${run.number})`,
    project: MIGRATION_PROJECT,
    stage: 'staging',
    erpVersion: migration.destination as InstanceSettings['erpVersion'],
    edition: migration.flavor,
    modules: [],
    gitRepo: null,
    branch: 'main',
    source: { kind: 'migration', migration: migration.slug, run: run.number, database: migration.workingDatabase, filestoreDir: context.paths.filestore },
  };
  if ((await context.instances.request(settings)) === 'taken') {
    return fail(`an instance ${slug} exists that run ${run.number} of ${migration.slug} did not create: it is left as it is, and this run gets no working instance`, { retryable: false });
  }
  await context.log(`working instance ${slug} requested`);
  for (;;) {
    const state = await context.instances.statusOf(slug);
    if (state.status === 'running') {
      await context.log(`working instance ${slug} runs at ${state.url ?? '?'}`);
      return done({ instance: slug, url: state.url });
    }
    if (state.status === 'failed' || state.status === 'destroyed') return fail(`the working instance ${slug} ${state.status === 'failed' ? `failed: ${state.lastError ?? ''}` : 'was destroyed'}`, { retryable: false });
    await sleep(1000, undefined, { signal: context.signal });
  }
};
