import type { Bus } from './bus.ts';
import { createMemoryBus } from './memoryBus.ts';
import { createNatsBus } from './natsBus.ts';

/**
 * NATS JetStream when NATS_URL is set (its credentials, `nats://TOKEN@host:port`, become the
 * client's options), otherwise the in-process bus (single-process mode only).
 */
export async function openBus(natsUrl: string | undefined): Promise<Bus> {
  return natsUrl ? createNatsBus({ url: natsUrl }) : createMemoryBus();
}
