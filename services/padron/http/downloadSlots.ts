/** What the cap decided for one download: a slot to release when the response closes, or why not. */
export type SlotDecision = { granted: true; release: () => void } | { granted: false; reason: string };

/**
 * The cap on downloads in progress, per client and overall. A download costs the service a file
 * descriptor and a socket for as long as its client takes to read it, so a handful of clients
 * that never read must not be able to hold as many as they like; the spec's "no rate limit" on
 * the download is about how often one may download, not how many at once.
 */
export class DownloadSlots {
  private readonly perClient = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly max: number,
    private readonly perIp: number,
  ) {}

  take(client: string): SlotDecision {
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.perIp) return { granted: false, reason: `this address already has ${mine} downloads in progress, the most one address may have` };
    if (this.total >= this.max) return { granted: false, reason: `${this.total} downloads are in progress, the most the service serves at once` };
    this.perClient.set(client, mine + 1);
    this.total += 1;
    let released = false;
    // Idempotent: a response can report both an error and its close.
    const release = () => {
      if (released) return;
      released = true;
      this.total -= 1;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left === 0) this.perClient.delete(client);
      else this.perClient.set(client, left);
    };
    return { granted: true, release };
  }

  /** Downloads in progress now (for /metrics). */
  get inProgress(): number {
    return this.total;
  }
}
