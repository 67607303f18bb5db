/** Polls `<url>/web/health` until it answers 200, or fails after `timeoutMs` naming the last answer. */
export async function waitForHealth(url: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    try {
      const response = await fetch(`${url}/web/health`, { signal: AbortSignal.timeout(5000) });
      if (response.ok) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = (error as Error).cause ? String((error as { cause: { code?: string } }).cause.code ?? (error as Error).message) : (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the ERP did not answer ${url}/web/health within ${Math.round(timeoutMs / 1000)} s (last: ${last})`);
}
