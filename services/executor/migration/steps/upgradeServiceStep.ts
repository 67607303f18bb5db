import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { done } from '#shared/workflow/stepOutcome.ts';
import { detectDumpFormat } from '../../database/dumpFormat.ts';
import type { MigrationStep, MigrationStepContext } from '../migrationStepContext.ts';
import { runUpgrade, upgradeClient, type UpgradeRequestRef } from '../upgradeService/index.ts';
import { restoreCheckpoint, takeCheckpoint } from './checkpoint.ts';

/** Where the upgrade platform is, and who it writes to (its API requires an address). */
export interface UpgradeServiceSettings {
  url: string | undefined;
  email: string | undefined;
}

/**
 * The request an earlier attempt created, kept beside the run (mode 0600), never in events: its
 * key downloads the customer's database. A retry after a crash goes on with the same request
 * instead of uploading again.
 */
const requestFile = (context: MigrationStepContext) => join(context.paths.root, 'private', `run-${context.run.number}-${context.step.id}.upgrade-request.json`);

async function earlierRequest(context: MigrationStepContext): Promise<UpgradeRequestRef | undefined> {
  try {
    return JSON.parse(await readFile(requestFile(context), 'utf8')) as UpgradeRequestRef;
  } catch {
    return undefined;
  }
}

/**
 * The `upgrade-service` engine: the working database is dumped, sent to the ERP vendor's upgrade
 * platform with the migration's contract and purpose, processed there, and the upgraded dump is
 * restored into the working database (then a new checkpoint).
 */
export function upgradeServiceStep(settings: UpgradeServiceSettings): MigrationStep {
  return async (context) => {
    const { migration } = context;
    if (!settings.url) throw new Error('the upgrade-service engine needs FORJA_UPGRADE_SERVICE_URL (the vendor’s upgrade platform)');
    if (!migration.contract) throw new Error('the upgrade-service engine needs the migration’s contract');
    const email = migration.notifyTo[0] ?? settings.email;
    if (!email) throw new Error('the upgrade platform needs an e-mail address: add one to notify_to (or set FORJA_UPGRADE_SERVICE_EMAIL)');
    await mkdir(context.paths.run, { recursive: true });
    // Not the run's folder: the ERP's user is given that one, and the request's key must stay out of its reach.
    await mkdir(join(context.paths.root, 'private'), { recursive: true, mode: 0o700 });
    const resume = await earlierRequest(context);
    const dump = join(context.paths.run, `${context.step.id}.origin.dump`);
    const resultFile = join(context.paths.run, `${context.step.id}.upgraded.dump`);
    if (!resume) {
      if (context.dirty) await restoreCheckpoint(context);
      await context.databases.dump(migration.workingDatabase, dump);
    }
    const target = typeof context.step.params['hop'] === 'object' ? String((context.step.params['hop'] as { destination: string }).destination) : migration.destination;
    const outcome = await runUpgrade(
      {
        client: upgradeClient(settings.url),
        contract: migration.contract,
        aim: migration.purpose,
        target,
        email,
        dump,
        resultFile,
        resume,
        onRequest: (request) => writeFile(requestFile(context), JSON.stringify(request), { mode: 0o600 }),
      },
      { signal: context.signal, log: (line) => context.log(line) },
    );
    const format = await detectDumpFormat(outcome.file);
    await context.databases.restore(outcome.file, format, migration.workingDatabase);
    await takeCheckpoint(context);
    await Promise.all([rm(dump, { force: true }), rm(outcome.file, { force: true }), rm(requestFile(context), { force: true })]);
    return done({ requestId: outcome.request.requestId, bytes: outcome.bytes, sha256: outcome.sha256, target });
  };
}
