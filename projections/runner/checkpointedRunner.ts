import type { EventStore, RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import type { ReadModel } from '../readModel.ts';
import { readCheckpoint } from './checkpoints.ts';
import { createRunnerLock, sleep } from './runnerLock.ts';

export interface RunnerStatus {
  name: string;
  kind: 'projection' | 'reactor';
  /** Holds the lock and is processing; false while on standby behind another process. */
  active: boolean;
  checkpoint: number;
  head: number;
  /** Head minus checkpoint: events not processed yet (PostgreSQL positions are dense; EventStoreDB's are log offsets). */
  lag: number;
  lastError: string | undefined;
}

export interface RunnerDeps {
  store: EventStore;
  db: ReadModel;
  connectionString: string;
  logger: Logger;
  batchSize: number;
  /** Standby runners retry the lock, and failing runners retry their batch, this often. */
  retryMs: number;
}

/** What a projection or reactor does with one batch: its work, then the checkpoint move. */
export type ProcessBatch = (events: RecordedEvent[], from: number, to: number) => Promise<void>;

export interface Runner {
  readonly name: string;
  status(): Promise<RunnerStatus>;
  /** Stops after the batch in hand; resolves once the lock is released. */
  stop(): Promise<void>;
}

/**
 * Runs `processBatch` over the global feed from the stored checkpoint, one active runner per name
 * (advisory lock), forever. A failing batch is retried from the checkpoint after `retryMs`, so a
 * poison event stalls this runner (visible as lag and lastError) and never skips.
 */
export function startCheckpointedRunner(name: string, kind: RunnerStatus['kind'], deps: RunnerDeps, processBatch: ProcessBatch): Runner {
  const controller = new AbortController();
  const lock = createRunnerLock(deps.connectionString, name);
  let checkpoint = 0;
  let lastError: string | undefined;

  async function runWhileLocked(): Promise<void> {
    checkpoint = await readCheckpoint(deps.db, name);
    for await (const batch of deps.store.subscribe({ after: checkpoint, batchSize: deps.batchSize, signal: controller.signal })) {
      if (!lock.held) throw new Error(`lost the lock of ${name}`);
      const to = batch.at(-1)!.globalPosition;
      await processBatch(batch, checkpoint, to);
      checkpoint = to;
      lastError = undefined;
    }
  }

  const loop = (async () => {
    while (!controller.signal.aborted) {
      if (!(await lock.acquire(controller.signal, deps.retryMs))) break;
      deps.logger.info({ runner: name, kind }, 'runner active');
      try {
        await runWhileLocked();
      } catch (error) {
        lastError = (error as Error).message;
        deps.logger.error({ runner: name, err: error }, 'runner batch failed; retrying from its checkpoint');
        await lock.release();
        await sleep(deps.retryMs, controller.signal);
      }
    }
    await lock.release();
  })();

  return {
    name,
    async status() {
      const head = await deps.store.headPosition();
      const stored = await readCheckpoint(deps.db, name);
      return { name, kind, active: lock.held, checkpoint: stored, head, lag: Math.max(0, head - stored), lastError };
    },
    async stop() {
      controller.abort();
      await loop;
    },
  };
}
