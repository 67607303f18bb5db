import type { ReadModel } from '../readModel.ts';
import { readCheckpoint } from './checkpoints.ts';

export class ProjectionTimeoutError extends Error {
  override readonly name = 'ProjectionTimeoutError';
  constructor(
    readonly projection: string,
    readonly position: number,
    readonly reached: number,
    timeoutMs: number,
  ) {
    super(`projection ${projection} did not reach position ${position} within ${timeoutMs} ms (it is at ${reached}); is the projector running?`);
  }
}

/**
 * Read-your-writes: resolves once `projection` has processed the global feed up to `position`,
 * so a page rendered next shows the write that produced it. Bounded: throws after `timeoutMs`.
 */
export async function waitForPosition(
  db: ReadModel,
  projection: string,
  position: number,
  { timeoutMs = 5000 }: { timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  for (;;) {
    const reached = await readCheckpoint(db, projection);
    if (reached >= position) return;
    if (Date.now() >= deadline) throw new ProjectionTimeoutError(projection, position, reached, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(1, deadline - Date.now()))));
    delay = Math.min(delay * 2, 50);
  }
}
