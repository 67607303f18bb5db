import type { Pool } from '#shared/db.ts';
import type { Logger } from '#shared/log.ts';
import type { PadronRegistry } from '../lookup/registry.ts';
import type { PadronMetrics } from './metrics.ts';
import type { FixedWindowRateLimit } from './rateLimit.ts';

/** What the lookup handlers share. */
export interface LookupContext {
  pool: Pool;
  registry: PadronRegistry;
  metrics: PadronMetrics;
  rateLimit: FixedWindowRateLimit;
  /** Reverse proxies whose X-Forwarded-For is trusted (0 = none). */
  trustedHops: number;
  logger: Logger;
}
