import type { Writable } from 'node:stream';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import type { PullSettings } from '#shared/net/pullSettings.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import type { StepOutcome } from '#shared/workflow/stepOutcome.ts';
import type { InstanceSettings } from '#services/instances/domain/instance.ts';
import type { LiveMigration, Run } from '#services/migrations/domain/migration.ts';
import type { ReportSources } from '#services/migrations/report/runReport.ts';
import type { ErpDatabases } from '../database/erpDatabases.ts';
import type { FilestoreLimits } from '../database/filestoreLimits.ts';
import type { ErpRunSpec, Runtime } from '../runtime/runtime.ts';

/** Folders of one migration under FORJA_DATA_DIR/migrations/<slug>/. */
export interface MigrationPaths {
  /** FORJA_DATA_DIR: Forja's folder the others lie below, opened from it without following links. */
  dataRoot: string;
  /** The migration's own folder. */
  root: string;
  /** Where `fetch` puts the customer's dump (and filestore archive): `input/`. */
  input: string;
  /** The working filestore the ERP runs use: `work/filestore/`. */
  filestore: string;
  /** Scratch space of a run (dumps before they become artifacts): `runs/<n>/`. */
  run: string;
}

/**
 * Everything a migration step may use, for one run. The step's tools stop when `signal` aborts
 * (pause, stop, timeout, the executor stopping): `databases` is bound to it and tags its sessions.
 */
export interface MigrationStepContext {
  migration: LiveMigration;
  run: Run;
  step: PlannedStep;
  /** This attempt's number (1 for the first start of the step in this run). */
  attempt: number;
  /**
   * The working database may hold a half-done change from an earlier attempt of this step (a
   * retry, a resume, a start after a pause or a lost executor): a step that changes the database
   * first rebuilds it from the last snapshot (`restoreCheckpoint`).
   */
  dirty: boolean;
  paths: MigrationPaths;
  databases: ErpDatabases;
  runtime: Runtime;
  /** How the ERP of `version` runs one-shot on the working database. */
  erpRunSpec(version: string, extra?: Pick<ErpRunSpec, 'env'>): ErpRunSpec;
  /**
   * Checks out the customer's code for `version` when the migration names some (hopCheckout.ts),
   * once: later calls, and resumes, reuse it. `erpRunSpec` then puts its module folders on the path.
   */
  prepareCode(version: string): Promise<void>;
  /** Where `${paths.upgrade}` points for the ERP of `version` (OpenUpgrade's scripts, or the stand-in's fixtures). */
  upgradePath(version: string): string;
  blobs: BlobStore;
  pull: PullSettings;
  /** How far the input's filestore (a backup's `filestore/`, an uploaded archive) and a backup's dump.sql may expand (FORJA_FILESTORE_MAX_*). */
  filestoreLimits: FilestoreLimits;
  /** What the `report` step reads besides the run's state: the migration's recorded events (times, actors), their e-mails, the run log. */
  records: ReportSources;
  /** Working instances of the result (the `instance` step). */
  instances: WorkingInstances;
  /** The run's own log (`forja:` lines an operator follows). */
  log(line: string): Promise<void>;
  /** A writable for tools' raw output into the run's log; ended by whoever opened it. */
  toolLog(): Writable;
  signal: AbortSignal;
}

/** Names, asks for and reads the run's working instance. */
export interface WorkingInstances {
  /** Records the run's working instance in the migration's stream (once: a retry gets the same) and answers its slug. */
  reserve(): Promise<string>;
  /**
   * Asks for the instance. `taken`: an instance of that slug exists that this run did not ask for
   * (its events say so); it is left as it is. A second request by the same run is fine.
   */
  request(settings: InstanceSettings): Promise<'requested' | 'taken'>;
  statusOf(slug: string): Promise<{ status: string; url: string | null; lastError: string | null }>;
}

/** A migration step: registered by its recipe kind (`PlannedStep.type`). */
export type MigrationStep = (context: MigrationStepContext) => Promise<StepOutcome>;
