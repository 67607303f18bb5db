import { randomUUID } from 'node:crypto';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { padronStream, type PadronLoadedData } from '../padron.ts';
import { padronDecider } from '../padron.decider.ts';

/** Appends `PadronLoaded` through the decider, which refuses a file already recorded. */
export async function recordLoad(store: EventStore, load: PadronLoadedData): Promise<number | undefined> {
  const id = randomUUID();
  const result = await handleCommand(store, padronDecider, padronStream(load.state), { type: 'RecordPadronLoad', load }, {
    metadata: { correlationId: id, causationId: id, actor: 'system', at: new Date().toISOString() },
  });
  return result.lastGlobalPosition;
}
