import type { Kysely, Transaction } from 'kysely';
import type { InstanceDetailDb } from './instances/instanceDetail.ts';
import type { InstanceJobStepsDb, InstanceJobStepsTable } from './instances/instanceJobSteps.ts';
import type { InstanceListDb } from './instances/instanceList.ts';
import type { PadronLoadsDb } from './padronLoads/padronLoads.table.ts';
import type { ProjectDetailDb } from './projects/projectDetail.table.ts';
import type { ProjectListDb } from './projects/projectList.table.ts';
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
export interface ReadModelDatabase extends CheckpointsDb, StreamActivityDb, UsersDb, ProjectListDb, ProjectDetailDb, PadronLoadsDb, InstanceListDb, InstanceDetailDb {
  // InstanceJobStepsDb also declares a partial instance_detail for its own reads, so it is spelled out.
  instance_job_steps: InstanceJobStepsTable;
}

/** A handle on the read model: what every query function takes. A `Transaction` is one too. */
export type ReadModel = Kysely<ReadModelDatabase>;

/** What a projection's `apply` gets: the batch's transaction. */
export type ReadModelTransaction = Transaction<ReadModelDatabase>;

/**
 * The handle processes hold. Kysely's database type is invariant, and the instance read models'
 * query functions still take their own `Kysely<Instance…Db>`: this one passes for those and for
 * `ReadModel`. It becomes plain `ReadModel` once they take `ReadModel` too.
 */
export type ReadModelHandle = ReadModel & Kysely<InstanceListDb> & Kysely<InstanceDetailDb> & Kysely<InstanceJobStepsDb>;

/** Schema `read_model` of the platform's database (`infra.db`, which services/shared leaves untyped). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- where the untyped platform handle gets its read-model type
export function readModelOf(db: Kysely<any>): ReadModelHandle {
  return db.withSchema('read_model');
}
