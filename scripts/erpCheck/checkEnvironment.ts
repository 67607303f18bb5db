import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '#shared/config/config.ts';
import { withFolderBeneath } from '#shared/fs/beneath.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { ERP_CHECK_INSTANCE_PREFIX } from '#shared/instanceDatabase/reservedNames.ts';
import { parseUidRange, removeTenantAccount, type UidRange } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { erpDatabases, type ErpDatabases } from '#services/executor/database/erpDatabases.ts';
import { openErpDatabaseServer } from '#services/executor/erpDatabaseServer.ts';
import { erpServerSettings, loadExecutorSettings, type ExecutorSettings } from '#services/executor/executor.settings.ts';
import { DockerRuntime, dockerRuntimeOptions } from '#services/executor/runtime/docker/dockerRuntime.ts';
import { openEngine } from '#services/executor/runtime/docker/engine.ts';
import { imageRefFor, inspectErpImage } from '#services/executor/runtime/docker/erpImage.ts';
import { checkCommand, erpCommandFor } from '#services/executor/runtime/process/erpCommand.ts';
import { ProcessRuntime } from '#services/executor/runtime/process/processRuntime.ts';
import type { ErpRunSpec, Runtime } from '#services/executor/runtime/runtime.ts';
import { removeTree } from '#services/executor/runtime/tenantFolders.ts';
import type { ErpCheckArgs } from './erpCheckArgs.ts';

/** What the behaviours run against: one throwaway instance, as the executor would make it. */
export interface CheckEnvironment {
  runtime: Runtime;
  /** The throwaway instance's run spec (no addons path yet: the setup computes it). */
  spec: ErpRunSpec;
  databases: ErpDatabases;
  /** A private temporary folder for the check's repositories. */
  tempDir: string;
  /** FORJA_ERP_ADDONS and FORJA_ERP_ENTERPRISE_ADDONS, as the executor reads them. */
  settings: ExecutorSettings;
  /** One line on where the ERP runs and where its database is. */
  describe: string;
  /** The database log (what Forja did to the throwaway database), for a failed setup. */
  dbLog: () => string;
}

/** A wrong setting, command or image: nothing was made yet, exit 2. */
export class CheckConfigError extends Error {
  override readonly name = 'CheckConfigError';
}

/** Steps that undo what the setup made, last made first; each runs whatever the others did. */
export type Cleanup = Array<{ what: string; undo: () => Promise<unknown> }>;

/**
 * Reads the settings the executor reads (FORJA_DATA_DIR, FORJA_ERP_DATABASE_URL, FORJA_DOCKER_*,
 * FORJA_ERP_ADDONS, FORJA_ERP_WORKERS…) and checks the command or image before anything is made.
 */
export async function preflight(args: ErpCheckArgs): Promise<{ settings: ExecutorSettings; dataDir: string; uidRange: UidRange }> {
  let settings: ExecutorSettings;
  let dataDir: string;
  let uidRange: UidRange;
  try {
    const config = loadConfig();
    settings = loadExecutorSettings();
    dataDir = resolve(config.FORJA_DATA_DIR);
    uidRange = parseUidRange(config.FORJA_TENANT_UID_RANGE);
  } catch (error) {
    throw new CheckConfigError((error as Error).message);
  }
  if (args.image === undefined) {
    try {
      checkCommand(erpCommandFor(args.command, args.erpVersion), args.erpVersion);
    } catch (error) {
      throw new CheckConfigError(`--command: ${(error as Error).message.replace(/^FORJA_ERP_COMMAND: /, '')}`);
    }
  } else {
    const ref = imageRefFor(args.image, args.erpVersion);
    if (!existsSync(settings.FORJA_DOCKER_SOCKET)) throw new CheckConfigError(`--image: no Docker engine socket at ${settings.FORJA_DOCKER_SOCKET} (FORJA_DOCKER_SOCKET)`);
    try {
      await inspectErpImage(openEngine(settings.FORJA_DOCKER_SOCKET), ref, args.erpVersion);
    } catch (error) {
      throw new CheckConfigError(`--image: ${(error as Error).message}`);
    }
  }
  return { settings, dataDir, uidRange };
}

function memoryLog(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * Opens the ERP database server and the runtime and names the throwaway instance: slug
 * `erpcheck-<random>` (reserved: no user's instance has it), its folder, account and database
 * (`forja_erpcheck_…`, owned by a role of its own with a password nobody keeps). `cleanup` receives
 * how to undo each thing as soon as it exists.
 */
export async function openCheckEnvironment(args: ErpCheckArgs, cleanup: Cleanup): Promise<CheckEnvironment> {
  const { settings, dataDir, uidRange } = await preflight(args);
  mkdirSync(dataDir, { recursive: true });
  const slug = `${ERP_CHECK_INSTANCE_PREFIX}${randomBytes(4).toString('hex')}`;
  const database = databaseName(slug);
  const credentials = instanceCredentials(randomBytes(32), database);

  const tempDir = await mkdtemp(join(tmpdir(), 'forja-erp-check-'));
  cleanup.push({ what: `remove ${tempDir}`, undo: () => rm(tempDir, { recursive: true, force: true }) });

  const erpServer = await openErpDatabaseServer(settings.FORJA_ERP_DATABASE_URL, dataDir);
  cleanup.push({ what: 'close the ERP database server', undo: () => erpServer.close() });

  cleanup.push({ what: `remove the account of ${slug}`, undo: async () => removeTenantAccount('instance', slug) });
  cleanup.push({
    what: `remove ${instanceDir(dataDir, slug)}`,
    undo: async () => {
      if (!existsSync(instanceDir(dataDir, slug))) return;
      // Through the folder's handle, never following a link the ERP's account left (as the executor's remove_files).
      withFolderBeneath(dataDir, 'instances', (fd) => removeTree(fd, slug));
    },
  });

  const dbLog = memoryLog();
  const databases = erpDatabases({ adminUrl: erpServer.adminUrl, log: dbLog.stream, credentials: () => credentials });
  cleanup.push({ what: `drop database ${database} and its role`, undo: () => databases.drop(database) });

  const runtime: Runtime =
    args.image === undefined
      ? new ProcessRuntime({ dataDir, command: args.command, pip: { indexUrl: settings.FORJA_PIP_INDEX_URL, findLinks: settings.FORJA_PIP_FIND_LINKS }, uidRange })
      : new DockerRuntime({ ...dockerRuntimeOptions(settings), image: args.image, uidRange });
  cleanup.push({ what: 'close the runtime', undo: () => runtime.close() });
  cleanup.push({ what: `stop and remove the ERP of ${slug}`, undo: () => runtime.destroy(slug) });

  const dir = instanceDir(dataDir, slug);
  const spec: ErpRunSpec = {
    slug,
    erpVersion: args.erpVersion,
    edition: 'community',
    database,
    db: { ...erpServer.server, ...credentials },
    sourceDir: join(dir, 'src'),
    addonsPath: [],
    dataDir: dir,
    logFile: instanceLogFile(dataDir, slug, 'erp'),
    root: dataDir,
    tenant: { kind: 'instance', slug },
    demoData: false,
    server: erpServerSettings(settings),
    python: null,
  };
  return { runtime, spec, databases, tempDir, settings, describe: `${runtime.describe()}; ${erpServer.describe}`, dbLog: dbLog.text };
}

/** Runs every cleanup step, last made first; says which failed. */
export async function runCleanup(cleanup: Cleanup): Promise<string[]> {
  const failed: string[] = [];
  for (const { what, undo } of cleanup.reverse()) {
    try {
      await undo();
    } catch (error) {
      failed.push(`${what}: ${(error as Error).message}`);
    }
  }
  return failed;
}
