/** How one behaviour ended: passed (with its duration), failed (with why) or skipped (with why). */
export type Verdict = { kind: 'pass'; ms: number } | { kind: 'fail'; reason: string } | { kind: 'skip'; reason: string };

/**
 * Runs `work` bounded by `timeoutMs` and by `interrupt` (Ctrl-C): the signal it gets fires at
 * either, and the verdict comes then even if `work` has not noticed (what it left running is
 * stopped by the cleanup).
 */
export async function runBounded(work: (signal: AbortSignal) => Promise<void>, timeoutMs: number, interrupt: AbortSignal): Promise<Verdict> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  const onInterrupt = () => controller.abort(new Error('interrupted'));
  interrupt.addEventListener('abort', onInterrupt, { once: true });
  if (interrupt.aborted) onInterrupt();
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(controller.signal.reason as Error);
    if (controller.signal.aborted) fail();
    else controller.signal.addEventListener('abort', fail, { once: true });
  });
  const began = Date.now();
  try {
    await Promise.race([work(controller.signal), aborted]);
    return { kind: 'pass', ms: Date.now() - began };
  } catch (error) {
    const reason = controller.signal.aborted ? (controller.signal.reason as Error).message : error instanceof Error ? error.message : String(error);
    return { kind: 'fail', reason: reason.replace(/\s+/g, ' ').trim() };
  } finally {
    clearTimeout(timer);
    interrupt.removeEventListener('abort', onInterrupt);
  }
}

/** The verdict's line: `PASS name (ms)`, `FAIL name: reason`, `SKIP name: reason`. */
export function verdictLine(name: string, verdict: Verdict): string {
  switch (verdict.kind) {
    case 'pass':
      return `PASS ${name} (${verdict.ms} ms)`;
    case 'fail':
      return `FAIL ${name}: ${verdict.reason}`;
    case 'skip':
      return `SKIP ${name}: ${verdict.reason}`;
    default: {
      const unknown: never = verdict;
      throw new Error(`unknown verdict ${JSON.stringify(unknown)}`);
    }
  }
}
