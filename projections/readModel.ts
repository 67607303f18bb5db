import type { Kysely, Transaction } from 'kysely';
import type { MigrationDetailDb } from './erpMigrations/migrationDetail.table.ts';
import type { MigrationRunReportsDb } from './erpMigrations/migrationRunReports.table.ts';
import type { MigrationRunsDb } from './erpMigrations/migrationRuns.table.ts';
import type { MigrationRunStepsDb } from './erpMigrations/migrationRunSteps.table.ts';
import type { InstanceDetailDb } from './instances/instanceDetail.table.ts';
import type { InstanceJobStepsDb } from './instances/instanceJobSteps.table.ts';
import type { InstanceListDb } from './instances/instanceList.table.ts';
import type { MigrationNoticeOutboxDb } from './notices/noticeOutbox.table.ts';
import type { PadronLoadsDb } from './padronLoads/padronLoads.table.ts';
import type { ProjectDetailDb } from './projects/projectDetail.table.ts';
import type { ProjectListDb } from './projects/projectList.table.ts';
import type { RecipesDb } from './recipes/recipes.table.ts';
import type { SshKeysDb } from './sshKeys/sshKeys.table.ts';
import type { CheckpointsDb } from './runner/checkpoints.table.ts';
import type { StreamActivityDb } from './streamActivity/streamActivity.table.ts';
import type { UsersDb } from './users/users.table.ts';

/**
 * Schema `read_model`, as Kysely sees it: one interface composed from every read model's tables.
 * A new read model writes its table in `<query>.table.ts` (`interface XTable`, and
 * `interface XDb { x: XTable }`), adds `XDb` here, and types its projection
 * `Projection<ReadModelDatabase>` and its queries `(db: ReadModel, …)`. Table files import no
 * query file, so this one can import them all without a cycle.
 */
export interface ReadModelDatabase
  extends CheckpointsDb,
    StreamActivityDb,
    UsersDb,
    ProjectListDb,
    ProjectDetailDb,
    PadronLoadsDb,
    InstanceListDb,
    InstanceDetailDb,
    InstanceJobStepsDb,
    MigrationDetailDb,
    MigrationRunsDb,
    MigrationRunStepsDb,
    MigrationRunReportsDb,
    MigrationNoticeOutboxDb,
    RecipesDb,
    SshKeysDb {}

/** A handle on the read model: what every query function takes. A `Transaction` is one too. */
export type ReadModel = Kysely<ReadModelDatabase>;

/** What a projection's `apply` gets: the batch's transaction. */
export type ReadModelTransaction = Transaction<ReadModelDatabase>;

/** Schema `read_model` of the platform's database (`infra.db`, which services/shared leaves untyped). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- where the untyped platform handle gets its read-model type
export function readModelOf(db: Kysely<any>): ReadModel {
  return db.withSchema('read_model');
}
