import type { RejectSummary } from '../padron.ts';

/** How many line numbers a reason keeps: enough to find the pattern in the file, bounded whatever its size. */
const FIRST_LINES = 10;

/** Counts lines per reason (refused ones, or kept ones worth a warning), keeping the first line numbers of each. */
export class RejectTally {
  private readonly byReason = new Map<string, RejectSummary>();
  private total = 0;

  add(reason: string, line: number): void {
    this.total++;
    const entry = this.byReason.get(reason);
    if (!entry) this.byReason.set(reason, { reason, count: 1, firstLines: [line] });
    else {
      entry.count++;
      if (entry.firstLines.length < FIRST_LINES) entry.firstLines.push(line);
    }
  }

  /** Adds many lines of one reason at once (duplicates found after the COPY). */
  addAll(reason: string, lines: readonly number[]): void {
    for (const line of [...lines].sort((a, b) => a - b)) this.add(reason, line);
  }

  get count(): number {
    return this.total;
  }

  /** Reasons by count, largest first. */
  summary(): RejectSummary[] {
    return [...this.byReason.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  }
}
