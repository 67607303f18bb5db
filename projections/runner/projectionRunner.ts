import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { ReadModel } from '../readModel.ts';
import { advanceCheckpoint } from './checkpoints.ts';
import { startCheckpointedRunner, type Runner, type RunnerDeps } from './checkpointedRunner.ts';
import { eventsFor, type Projection, type Reactor } from './projection.ts';

/** Returns a function that applies one batch and moves the checkpoint in a single transaction. */
export function projectionBatchApplier(projection: Projection, db: ReadModel) {
  const relevantOf = eventsFor(projection.eventTypes);
  return async (batch: RecordedEvent[], from: number, to: number): Promise<void> => {
    await db.transaction().execute(async (trx) => {
      const relevant = relevantOf(batch);
      if (relevant.length > 0) await projection.apply(trx, relevant);
      await advanceCheckpoint(trx, projection.name, from, to);
    });
  };
}

/** Keeps a read model: each batch applied with its checkpoint move, exactly once. */
export function startProjection(projection: Projection, deps: RunnerDeps): Runner {
  return startCheckpointedRunner(projection.name, 'projection', deps, projectionBatchApplier(projection, deps.db));
}

/** Handles each batch, then moves the checkpoint: at-least-once, so handlers are idempotent. */
export function startReactor(reactor: Reactor, deps: RunnerDeps): Runner {
  const relevantOf = eventsFor(reactor.eventTypes);
  return startCheckpointedRunner(reactor.name, 'reactor', deps, async (batch, from, to) => {
    const relevant = relevantOf(batch);
    if (relevant.length > 0) await reactor.handle(relevant);
    await advanceCheckpoint(deps.db, reactor.name, from, to);
  });
}
