import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { done } from '#shared/workflow/stepOutcome.ts';
import { type DumpFormat, detectDumpFormat } from '../../database/dumpFormat.ts';
import { extractBackupDump, isZipArchive } from '../backup/backupArchive.ts';
import type { MigrationStep, MigrationStepContext } from '../migrationStepContext.ts';
import { runUpgrade, upgradeClient, type UpgradeOutcome, type UpgradeRequestRef } from '../upgradeService/index.ts';
import { type ReturnedFilestore, mergeReturnedFilestore } from '../workingFilestore.ts';
import { artifactFile, storeArtifact } from './artifact.ts';
import { restoreCheckpoint, takeCheckpoint } from './checkpoint.ts';

/** Where the upgrade platform is, and the account and folder its nodes take transfers in (the vendor's script: `odoo`, `/data`). */
export interface UpgradeServiceSettings {
  url: string | undefined;
  sshUser?: string | undefined;
  dataPath?: string | undefined;
  /** Between two status reads: the vendor's script's 5 s unless a test says otherwise. */
  pollMs?: number | undefined;
}

/**
 * The step's own folder, root's alone (0700) under the migration's `private/`: the request's token
 * and SSH key read the customer's database, and the dump and the result are written there by
 * root, never in the run's folder, which the migration's ERP account is given.
 */
const workDir = (context: MigrationStepContext) => join(context.paths.root, 'private', `run-${context.run.number}-${context.step.id}`);
const requestFile = (work: string) => join(work, 'request.json');

async function earlierRequest(work: string): Promise<UpgradeRequestRef | undefined> {
  try {
    const saved = JSON.parse(await readFile(requestFile(work), 'utf8')) as Partial<UpgradeRequestRef>;
    return typeof saved.requestId === 'string' && typeof saved.token === 'string' && typeof saved.hostUri === 'string' ? (saved as UpgradeRequestRef) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `upgrade-service` engine: the working database is dumped, sent to the ERP vendor's upgrade
 * platform (JSON-RPC and rsync over SSH, upgradeClient.ts) with the migration's contract and
 * purpose, processed there; the upgraded database comes back as a directory dump or a zip with
 * `dump.sql`, restored into the working database, and the returned `filestore/` is merged into
 * the working filestore. The platform's report is kept as an artifact. A retry after a crash
 * resumes the same request (its token is kept beside the step's key).
 */
export function upgradeServiceStep(settings: UpgradeServiceSettings): MigrationStep {
  return async (context) => {
    const { migration, signal } = context;
    if (!settings.url) throw new Error('the upgrade-service engine needs FORJA_UPGRADE_SERVICE_URL (the vendor’s upgrade platform)');
    if (!migration.contract) throw new Error('the upgrade-service engine needs the migration’s contract');
    await mkdir(join(context.paths.root, 'private'), { recursive: true, mode: 0o700 });
    const work = workDir(context);
    await mkdir(work, { recursive: true, mode: 0o700 });
    const resume = await earlierRequest(work);
    const dump = join(work, 'origin.dump');
    const resultDir = join(work, 'result');
    // A dump an attempt left without a request may predate a checkpoint restore: made again when needed.
    if (!resume) await rm(dump, { force: true });
    const hop = context.step.params['hop'] as { destination?: string } | undefined;
    const target = hop?.destination ?? migration.destination;
    const env = Object.entries((context.step.params['env'] ?? {}) as Record<string, unknown>).map(([name, value]) => `${name}=${String(value)}`);
    const toolLog = context.toolLog();
    try {
      const outcome = await runUpgrade(
        {
          client: upgradeClient(settings.url),
          contract: migration.contract,
          aim: migration.purpose,
          target,
          envVars: env,
          dump,
          makeDump: async () => {
            if (context.dirty) await restoreCheckpoint(context);
            await context.databases.dump(migration.workingDatabase, dump);
          },
          resultDir,
          keyDir: work,
          sshUser: settings.sshUser,
          dataPath: settings.dataPath,
          resume,
          onRequest: (request) => writeFile(requestFile(work), JSON.stringify(request), { mode: 0o600 }),
        },
        { signal, log: (line) => context.log(line), toolLog, pollMs: settings.pollMs ?? 5000 },
      );
      return await restoreResult(context, outcome, { work, resultDir, target, toolLog });
    } finally {
      toolLog.end();
    }
  };
}

/** The upgraded database into the working database, the returned filestore merged, the report kept, a checkpoint taken. */
async function restoreResult(context: MigrationStepContext, outcome: UpgradeOutcome, { work, resultDir, target, toolLog }: { work: string; resultDir: string; target: string; toolLog: Writable }) {
  const { migration, signal } = context;
  const result = join(resultDir, outcome.dumpName);
  const { dumpFile, format, filestore } = await unpackResult(context, result, work, resultDir);
  await context.log(`upgrade-service: restoring the upgraded database (${format === 'directory' ? 'a directory dump' : format === 'plain' ? "the zip's dump.sql" : 'a custom archive'}) into ${migration.workingDatabase}`);
  await context.databases.restore(dumpFile, format, migration.workingDatabase);
  let merged = { added: 0, files: 0 };
  if (filestore) {
    merged = await mergeReturnedFilestore(join(context.paths.filestore, migration.workingDatabase), filestore, {
      limits: context.filestoreLimits,
      signal,
      log: toolLog,
      root: context.paths.dataRoot,
    });
    await context.log(`upgrade-service: merged ${merged.added} returned file(s) into the working filestore (${merged.files} in all)`);
  } else {
    await context.log('upgrade-service: the result has no filestore/: the working filestore is kept as it is');
  }
  const report = await keepReport(context, join(resultDir, 'upgrade-report.html'));
  await takeCheckpoint(context);
  await rm(work, { recursive: true, force: true });
  return done({
    requestId: outcome.request.requestId,
    target,
    result: outcome.dumpName,
    format,
    filestoreAdded: merged.added,
    pgVersionCompatible: outcome.pgVersionCompatible,
    // Listed with the run's artifacts (a step's `artifact` fact), downloadable as any other.
    ...(report ? { artifact: report } : {}),
  });
}

/**
 * The result as the platform returns it: a directory dump (`toc.dat` inside) with `filestore/`
 * beside it, or a zip holding `dump.sql` and `filestore/` (its dump.sql held to the filestore's
 * limits as an uploaded backup's is); a plain or custom dump file is taken too.
 */
async function unpackResult(context: MigrationStepContext, result: string, work: string, resultDir: string): Promise<{ dumpFile: string; format: DumpFormat; filestore: ReturnedFilestore | null }> {
  const folder = join(resultDir, 'filestore');
  const beside = existsSync(folder) ? { folder } : null;
  if (await isZipArchive(result).catch(() => false)) {
    const dumpFile = join(work, 'result.sql');
    await extractBackupDump(result, dumpFile, context.filestoreLimits, context.signal);
    return { dumpFile, format: 'plain', filestore: beside ?? { zip: result } };
  }
  return { dumpFile: result, format: await detectDumpFormat(result), filestore: beside };
}

/** The platform's upgrade report, as a `report` artifact of the run. */
async function keepReport(context: MigrationStepContext, file: string) {
  if (!existsSync(file)) return null;
  const copy = await artifactFile(context, '.upgrade-report.html');
  await copyFile(file, copy);
  return storeArtifact(context, 'report', copy);
}
