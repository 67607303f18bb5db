/** Services started lazily by tests register how to stop them; the root hook stops them all. */
const stoppers: Array<() => Promise<void>> = [];

export function onTeardown(stop: () => Promise<void>): void {
  stoppers.push(stop);
}

export async function runTeardown(): Promise<void> {
  while (stoppers.length > 0) {
    const stop = stoppers.pop();
    await stop?.().catch((error: unknown) => console.error('teardown failed:', error));
  }
}
