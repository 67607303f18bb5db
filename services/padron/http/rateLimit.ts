import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';

/** What the limiter decided for one request, and the RateLimit-* headers that say so. */
export interface RateDecision {
  allowed: boolean;
  headers: OutgoingHttpHeaders;
}

const UNLIMITED: RateDecision = { allowed: true, headers: {} };

/**
 * A per-client fixed-window limiter: every window starts on a multiple of its length, so one map
 * of counters, emptied when the window turns, is the whole state (one lookup and one increment per
 * request, memory bounded by the clients of one window). Headers follow the IETF RateLimit fields
 * draft: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds), `RateLimit-Policy`.
 */
export class FixedWindowRateLimit {
  private counts = new Map<string, number>();
  private windowEnds = 0;
  private readonly windowMs: number;
  private readonly policy: string;

  constructor(
    private readonly limit: number,
    windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = windowSeconds * 1000;
    this.policy = `${limit};w=${windowSeconds}`;
  }

  take(client: string): RateDecision {
    if (this.limit === 0) return UNLIMITED;
    const now = this.now();
    if (now >= this.windowEnds) {
      this.counts = new Map();
      this.windowEnds = (Math.floor(now / this.windowMs) + 1) * this.windowMs;
    }
    const count = (this.counts.get(client) ?? 0) + 1;
    this.counts.set(client, count);
    const reset = String(Math.max(1, Math.ceil((this.windowEnds - now) / 1000)));
    const headers: OutgoingHttpHeaders = {
      'ratelimit-limit': String(this.limit),
      'ratelimit-remaining': String(Math.max(0, this.limit - count)),
      'ratelimit-reset': reset,
      'ratelimit-policy': this.policy,
    };
    if (count <= this.limit) return { allowed: true, headers };
    headers['retry-after'] = reset;
    return { allowed: false, headers };
  }
}

/**
 * The client's address: the socket's, unless `trustedHops` reverse proxies stand in front, in
 * which case it is that many entries from the right of X-Forwarded-For (what express's numeric
 * `trust proxy` means). Never trusting the header by default keeps clients from picking their IP.
 */
export function clientAddress(req: IncomingMessage, trustedHops: number): string {
  const socketAddress = req.socket.remoteAddress ?? '';
  if (trustedHops === 0) return socketAddress;
  const forwarded = req.headers['x-forwarded-for'];
  if (forwarded === undefined) return socketAddress;
  const chain = [...(Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',').map((entry) => entry.trim()), socketAddress];
  return chain[Math.max(0, chain.length - 1 - trustedHops)] ?? socketAddress;
}
