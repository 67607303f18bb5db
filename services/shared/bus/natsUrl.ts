/** What nats.js needs to connect: it reads no credentials from a server URL, only from options. */
export interface NatsConnection {
  servers: string;
  token?: string;
  user?: string;
  pass?: string;
}

/**
 * A NATS URL with its credentials, the way other NATS clients write it — `nats://TOKEN@host:port`
 * or `nats://USER:PASS@host:port` — as nats.js options. NATS_URL can then carry the token of a
 * private nats-server to processes in other OS processes.
 */
export function natsConnection(url: string): NatsConnection {
  const match = /^([a-z]+:\/\/)([^@/]*)@(.*)$/i.exec(url);
  if (!match) return { servers: url };
  const [, scheme, credentials, rest] = match as unknown as [string, string, string, string];
  const servers = `${scheme}${rest}`;
  const colon = credentials.indexOf(':');
  if (colon === -1) return { servers, token: decodeURIComponent(credentials) };
  return { servers, user: decodeURIComponent(credentials.slice(0, colon)), pass: decodeURIComponent(credentials.slice(colon + 1)) };
}

/** The URL without its credentials, for messages and logs. */
export function natsAddress(url: string): string {
  return natsConnection(url).servers;
}
