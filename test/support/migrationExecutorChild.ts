import { register } from 'node:module';

/**
 * The real executor (services/executor/main.ts) for the migration kill test, its migration steps
 * taken from pausingMigrationSteps.ts: the step named in PAUSE_AFTER_STEP hangs after its work,
 * before its completion is recorded, and says so to the parent.
 */
register('./migrationStepHooks.ts', import.meta.url);
await import('#services/executor/main.ts');
