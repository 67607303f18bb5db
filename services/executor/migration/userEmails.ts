import type { EventStore } from '#shared/eventStore/eventStore.ts';

/**
 * The e-mail of each user id, from the users' own streams (`user-<id>`, the identity context's
 * naming; its `UserRegistered` carries the e-mail, which never changes): the executor reads the
 * event store, not the control-plane's read model. An id with no such stream is left out.
 */
export async function emailsFromUserStreams(store: EventStore, actors: readonly string[]): Promise<Record<string, string>> {
  const emails: Record<string, string> = {};
  for (const actor of new Set(actors)) {
    const { events } = await store.readStream(`user-${actor}`);
    const email = (events.find((event) => event.type === 'UserRegistered')?.data as { email?: unknown } | undefined)?.email;
    if (typeof email === 'string') emails[actor] = email;
  }
  return emails;
}
