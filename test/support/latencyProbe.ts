/**
 * Requests `urls` one after another, round after round, until stopped, and records how long each
 * took: what other users see while a test loads the server.
 */
export function latencyProbe(urls: string[]) {
  const timings: number[] = [];
  const failures: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const url of urls) {
        const started = performance.now();
        const res = await fetch(url, { signal: AbortSignal.timeout(30_000) }).catch((error: Error) => error);
        if (res instanceof Error || !res.ok) failures.push(`${url}: ${res instanceof Error ? res.message : res.status}`);
        else await res.arrayBuffer();
        timings.push(performance.now() - started);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    /** Stops probing; the timings in milliseconds, sorted, and the requests that failed. */
    async stop() {
      running = false;
      await loop;
      return { timings: timings.sort((a, b) => a - b), failures };
    },
  };
}

/** The `p`th percentile (0–100) of sorted `timings`. */
export function percentile(timings: number[], p: number): number {
  return timings[Math.min(timings.length - 1, Math.ceil((p / 100) * timings.length) - 1)] ?? Number.NaN;
}
