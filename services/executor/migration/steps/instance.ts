import { setTimeout as sleep } from 'node:timers/promises';
import { done, fail } from '#shared/workflow/stepOutcome.ts';
import type { InstanceSettings } from '#services/instances/domain/instance.ts';
import type { MigrationStep } from '../migrationStepContext.ts';

/** The project the working instances of migrations belong to. */
export const MIGRATION_PROJECT = 'migrations';

/** `<migration>-r<run>`, short enough for a database name. */
export const workingInstanceSlug = (migration: string, run: number): string => `${migration.slice(0, 34).replace(/-+$/, '')}-r${run}`;

/**
 * A working instance of the result, to look at before going live: a copy of the working database
 * and filestore on the destination version, provisioned as any instance is. The step waits until it
 * runs (or says why it failed); a retry finds the instance it already asked for.
 */
export const instance: MigrationStep = async (context) => {
  const { migration, run } = context;
  const slug = workingInstanceSlug(migration.slug, run.number);
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
  await context.instances.request(settings);
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
