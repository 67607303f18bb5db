import type { ReadModel } from '../readModel.ts';

/** The last global position `name` has processed; 0 when it never ran. */
export async function readCheckpoint(db: ReadModel, name: string): Promise<number> {
  const row = await db.selectFrom('checkpoints').select('position').where('name', '=', name).executeTakeFirst();
  return row?.position ?? 0;
}

/**
 * Moves `name` from `from` to `to`. The compare-and-set makes a second writer — a runner that lost
 * its lock without knowing — fail instead of applying a batch twice.
 */
export async function advanceCheckpoint(db: ReadModel, name: string, from: number, to: number): Promise<void> {
  if (from === 0) {
    await db.insertInto('checkpoints').values({ name, position: 0 }).onConflict((oc) => oc.column('name').doNothing()).execute();
  }
  const result = await db
    .updateTable('checkpoints')
    .set({ position: to, updated_at: new Date() })
    .where('name', '=', name)
    .where('position', '=', from)
    .executeTakeFirst();
  if (result.numUpdatedRows !== 1n) throw new CheckpointMovedError(name, from);
}

export async function resetCheckpoint(db: ReadModel, name: string): Promise<void> {
  await db
    .insertInto('checkpoints')
    .values({ name, position: 0 })
    .onConflict((oc) => oc.column('name').doUpdateSet({ position: 0, updated_at: new Date() }))
    .execute();
}

export class CheckpointMovedError extends Error {
  override readonly name = 'CheckpointMovedError';
  constructor(projection: string, expected: number) {
    super(`checkpoint of ${projection} is no longer at ${expected}: another runner moved it`);
  }
}
