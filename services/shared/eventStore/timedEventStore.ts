import type { EventStore } from './eventStore.ts';

/** The same store, reporting how long each append took (to a metrics histogram, say). */
export function timedEventStore(store: EventStore, observeSeconds: (seconds: number) => void): EventStore {
  return {
    ...store,
    async appendToStream(stream, events, options) {
      const started = process.hrtime.bigint();
      try {
        return await store.appendToStream(stream, events, options);
      } finally {
        observeSeconds(Number(process.hrtime.bigint() - started) / 1e9);
      }
    },
  };
}
