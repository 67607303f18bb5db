import { readdirSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { at, lstatBeneath, withFolderBeneath } from '#shared/fs/beneath.ts';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { assertBlobKey } from '#shared/blobs/blobStore.ts';
import { instanceDir, instanceLogFile, uploadDir } from '#shared/platform/dataPaths.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { tenantAccount } from '#shared/local/tenantAccount.ts';
import { filestoreDir } from '../database/filestore.ts';
import { below, logStream } from '../logFile.ts';
import { removeTree } from '../runtime/tenantFolders.ts';
import { databaseManagerOpen, waitForReady } from './healthCheck.ts';
import { instanceAddonsPath, logAddonsPath, withAddonsPath } from './instanceAddons.ts';
import { assertModulesInstalled } from './moduleCheck.ts';
import { neutralizeCopy } from './neutralizeCopy.ts';
import type { Step, StepEnvironment } from './stepEnvironment.ts';

/** A writable appending to the instance's log of that source, for tools' raw output (never through a link: logFile.ts). */
const toolLog = (env: StepEnvironment, source: 'erp' | 'db') => logStream(env.dataDir, instanceLogFile(env.dataDir, env.instance.slug, source));

async function withToolLog<T>(env: StepEnvironment, source: 'erp' | 'db', use: (log: Writable) => Promise<T>): Promise<T> {
  const log = toolLog(env, source);
  try {
    return await use(log);
  } finally {
    await new Promise((resolve) => log.end(resolve));
  }
}

const filestoreOf = (dataDir: string, slug: string) => filestoreDir(instanceDir(dataDir, slug), databaseName(slug));

const resolveSource: Step = async (env) => {
  const { gitRepo, branch } = env.instance;
  if (!gitRepo) {
    await env.erpLog('no repository: the standard ERP only');
    return {};
  }
  const branchHead = await withToolLog(env, 'erp', (log) => env.source(log).resolveBranchHead(gitRepo, branch));
  await env.erpLog(`${branch} of ${gitRepo} is at ${branchHead}`);
  return { branchHead };
};

const fetchCode: Step = async (env) => {
  const { gitRepo, branch, facts } = env.instance;
  if (!gitRepo || !env.spec.sourceDir) return {};
  // Jobs whose resolve_source completed before branchHead existed recorded the head as `commit`.
  const commit = facts.branchHead ?? facts.commit;
  if (!commit) throw new Error('no commit was resolved for this job');
  const sourceDir = env.spec.sourceDir;
  await withToolLog(env, 'erp', (log) => env.source(log).checkout(gitRepo, branch, commit, sourceDir));
  await env.erpLog(`checked out ${commit} with its submodules`);
  return { commit };
};

/**
 * The file of a migration's artifact (the fs blob store keeps key `k` at FORJA_DATA_DIR/k). Only a
 * migration's artifact is read: the key came through an event, and nothing else is a database.
 */
async function migrationArtifactFile(dataDir: string, key: string, what: string): Promise<string> {
  if (!key.startsWith('migrations/')) throw new Error(`not a migration artifact: ${JSON.stringify(key)}`);
  const file = join(dataDir, assertBlobKey(key));
  const found = await stat(file).catch(() => undefined);
  if (!found?.isFile()) throw new Error(`the migration's ${what} ${key} is no longer stored: its migration was stopped or deleted`);
  return file;
}

/**
 * Runs after fetch_code, so a copy is neutralized by the ERP with the checked-out modules on its
 * path (neutralizeCopy.ts), and before anything starts the ERP on it.
 */
const database: Step = async (env) => {
  const { slug, source, stage } = env.instance;
  const target = env.spec.database;
  const filestore = filestoreOf(env.dataDir, slug);
  const neutralization = await withToolLog(env, 'db', async (log): Promise<string | undefined> => {
    const databases = env.databases(log);
    if (source.kind === 'empty') {
      await databases.recreate(target);
      return undefined;
    }
    if (source.kind === 'clone') {
      await databases.clone(databaseName(source.from), target);
      await env.filestore.copy(filestoreOf(env.dataDir, source.from), filestore, log, tenantAccount('instance', source.from, env.uidRange));
    } else if (source.kind === 'migration') {
      await databases.clone(source.database, target);
      if (source.filestoreDir) await env.filestore.copy(source.filestoreDir, filestore, log, tenantAccount('migration', source.migration, env.uidRange));
    } else if (source.kind === 'artifact') {
      // Read where it is: the artifact stays the migration's (a download, other instances).
      await databases.restore(await migrationArtifactFile(env.dataDir, source.blobKey, source.artifactKind), 'custom', target);
      if (source.filestoreKey) await env.filestore.extract(await migrationArtifactFile(env.dataDir, source.filestoreKey, 'filestore archive'), filestore, log);
    } else {
      const dir = uploadDir(env.dataDir, source.uploadId);
      await databases.restore(join(dir, 'dump'), source.dumpFormat, target);
      if (source.hasFilestore) await env.filestore.extract(join(dir, 'filestore'), filestore, log);
    }
    return stage === 'production' ? undefined : neutralizeCopy(env, databases);
  });
  return neutralization === undefined ? {} : { neutralization };
};

const build: Step = async (env) => {
  // The upload is in the database and filestore now (the database step completed before this
  // one started): a customer's dump does not stay on disk longer than it is needed.
  if (env.instance.source.kind === 'upload') await rm(uploadDir(env.dataDir, env.instance.source.uploadId), { recursive: true, force: true });
  await env.runtime.build(env.spec);
  // After the checkout (fetch_code) and the runtime's build (which tells whether the ERP is the stand-in).
  const addonsPath = instanceAddonsPath(env);
  await logAddonsPath(env, addonsPath);
  return { runtime: env.runtime.kind, standin: env.runtime.usesStandin(env.instance.erpVersion), addonsPath };
};

const installModules: Step = async (env) => {
  const modules = ['base', ...env.instance.modules.filter((name) => name !== 'base')];
  await env.runtime.runOnce(env.spec, ['-i', modules.join(','), '--stop-after-init'], env.signal);
  await withToolLog(env, 'db', (log) => assertModulesInstalled(env.databases(log), env.spec, modules));
  return {};
};

const updateModules: Step = async (env) => {
  if (env.instance.modules.length === 0) return {};
  await env.runtime.runOnce(env.spec, ['-u', env.instance.modules.join(','), '--stop-after-init'], env.signal);
  await withToolLog(env, 'db', (log) => assertModulesInstalled(env.databases(log), env.spec, env.instance.modules));
  return {};
};

const stop: Step = async (env) => {
  await env.runtime.stop(env.instance.slug);
  return {};
};

/**
 * The ERP's port is chosen at its first start and recorded; every later start asks for the same
 * one. With workers on, so is the gevent process's port (`/websocket`, routed by the ERP router).
 */
const start: Step = async (env) => {
  // The role's password is derived, not stored: setting it again costs one statement and heals a changed key.
  await withToolLog(env, 'db', (log) => env.databases(log).ensureRole(env.spec.database));
  const port = env.instance.facts.port ?? (await env.ports.allocate());
  const { spec, facts } = await withAddonsPath(env);
  const workers = (spec.server?.workers ?? 0) > 0;
  const geventPort = workers ? (env.instance.facts.geventPort ?? (await env.ports.allocate())) : undefined;
  const { url, geventUrl } = await env.runtime.start(spec, port, geventPort);
  return { url, port, ...facts, ...(geventPort !== undefined ? { geventPort } : {}), ...(geventUrl ? { geventUrl } : {}) };
};

const healthCheck: Step = async (env) => {
  const url = env.instance.facts.url;
  if (!url) throw new Error('the ERP was started but its URL is unknown');
  await waitForReady(url, { database: env.spec.database, erpVersion: env.spec.erpVersion }, env.healthTimeoutMs, env.signal);
  if (await databaseManagerOpen(url, env.signal)) {
    // Anyone reaching it could back up or drop the database: not left running.
    await env.runtime.stop(env.instance.slug);
    throw new Error(`the ERP's database manager was open at ${url}/web/database/ (it did not apply its configuration file's list_db = False), so Forja stopped it`);
  }
  return {};
};

const dropDatabase: Step = async (env) => {
  await withToolLog(env, 'db', (log) => env.databases(log).drop(env.spec.database));
  return {};
};

/** Everything of the instance but its logs (kept until purge, to read why it went the way it did). */
const removeFiles: Step = async (env) => {
  const { slug, source } = env.instance;
  await env.runtime.destroy(slug);
  // Through the folder's handle with coreutils' rm, which never follows a link the ERP's account left in its leaves.
  const dir = below(env.dataDir, instanceDir(env.dataDir, slug));
  if (lstatBeneath(env.dataDir, dir)?.isDirectory()) {
    withFolderBeneath(env.dataDir, dir, (fd) => {
      for (const entry of readdirSync(at(fd))) if (entry !== 'logs') removeTree(fd, entry);
    });
  }
  if (source.kind === 'upload') await rm(uploadDir(env.dataDir, source.uploadId), { recursive: true, force: true });
  return {};
};

export const STEPS: Readonly<Record<string, Step>> = {
  resolve_source: resolveSource,
  fetch_code: fetchCode,
  database,
  build,
  install_modules: installModules,
  update_modules: updateModules,
  stop,
  start,
  health_check: healthCheck,
  drop_database: dropDatabase,
  remove_files: removeFiles,
};

/** Steps whose failures are explained by the database log; the others by the ERP log. */
export const DATABASE_STEPS: readonly string[] = ['database', 'drop_database'];
