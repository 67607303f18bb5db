import type { ColumnType } from 'kysely';

/** Where each projection and reactor has got to in the global feed. */
export interface CheckpointsTable {
  name: string;
  position: number;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface CheckpointsDb {
  checkpoints: CheckpointsTable;
}
