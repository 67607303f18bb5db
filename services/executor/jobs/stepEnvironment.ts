import type { SystemUser } from '#shared/local/systemUser.ts';
import type { UidRange } from '#shared/local/tenantAccount.ts';
import type { Writable } from 'node:stream';
import type { LiveInstance, StepFacts } from '#services/instances/domain/instance.ts';
import type { ErpDatabases } from '../database/erpDatabases.ts';
import type { InstanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import type { AddonsSettings } from '../runtime/addonsPath.ts';
import type { ErpDatabaseServer, ErpRunSpec, Runtime } from '../runtime/runtime.ts';
import type { ErpServerSettings } from '../runtime/erpOptions.ts';
import type { PortAllocator } from '../ports/portAllocator.ts';
import type { JobLog } from './jobLog.ts';

/** Git operations for the source steps (services/shared/git). */
export interface SourceControl {
  resolveBranchHead(repo: string, branch: string): Promise<string>;
  checkout(repo: string, branch: string, commit: string, dir: string): Promise<string>;
}

export interface FilestoreOps {
  /** Copies `fromDir`, read as `reader` (the tenant whose folder it is: filestore.ts). */
  copy(fromDir: string, toDir: string, log: Writable, reader: SystemUser | null): Promise<unknown>;
  extract(archive: string, toDir: string, log: Writable): Promise<unknown>;
}

/**
 * What binds a tool to the job that runs it: the signal stops it (the job was cancelled, the step
 * timed out, the executor stops), the name tags its database sessions so they can be cancelled.
 */
export interface JobBinding {
  signal: AbortSignal;
  applicationName: string;
}

/** The executor's tools, bound to a job when one of its steps runs. */
export interface JobTools {
  databases: (log: Writable, job: JobBinding) => ErpDatabases;
  /** git for the instance's project: its SSH keys and pinned host keys (services/projects/projectSshAccess.ts). */
  source: (log: Writable, job: JobBinding, project: string) => SourceControl;
  filestore: (job: JobBinding) => FilestoreOps;
}

/** Everything a step may use, for one instance and one job; its tools stop when `signal` aborts. */
export interface StepEnvironment {
  instance: LiveInstance;
  jobId: string;
  runtime: Runtime;
  databases: (log: Writable) => ErpDatabases;
  source: (log: Writable) => SourceControl;
  filestore: FilestoreOps;
  erpDatabaseServer: ErpDatabaseServer;
  /** The role an instance database belongs to: what the ERP and the tools connect as. */
  credentials: (database: string) => InstanceCredentials;
  dataDir: string;
  /** FORJA_TENANT_UID_RANGE, for the instance's own account (tenantFolders.ts); the default range when unset. */
  uidRange?: UidRange;
  healthTimeoutMs: number;
  /** FORJA_ERP_ADDONS and FORJA_ERP_ENTERPRISE_ADDONS (addonsPath.ts); absent: both unset. */
  addons?: AddonsSettings;
  /** FORJA_ERP_WORKERS and the FORJA_ERP_LIMIT_* settings; absent: Odoo's defaults, threaded. */
  erpServer?: ErpServerSettings;
  /** Chooses a new instance's ERP port (once; it is kept in its facts). */
  ports: PortAllocator;
  /** The instance's ERP run spec (database name, folders, log file). */
  spec: ErpRunSpec;
  erpLog: JobLog;
  dbLog: JobLog;
  signal: AbortSignal;
}

export type Step = (env: StepEnvironment) => Promise<StepFacts>;
