import pg from 'pg';
import { throwIfAborted } from '../abortError.ts';
import { DEFAULT_APPLICATION_NAME } from './pgServer.ts';

export interface SessionOptions {
  /** application_name of the session; default `forja-executor`. A job's own name lets an abort find its sessions (cancelBackends). */
  applicationName?: string;
  /** Once it fired no session is opened: the job's sessions were cancelled once, when it fired. */
  signal?: AbortSignal;
}

/**
 * A session tagged `applicationName`, refused once `signal` has fired (checked again once
 * connected, so a session that raced the abort's cancel is not left open). A session the server
 * ends (cancelBackends terminating it) makes its next query fail, never an uncaught 'error' event.
 */
export async function openSession(connectionString: string, { applicationName = DEFAULT_APPLICATION_NAME, signal }: SessionOptions = {}): Promise<pg.Client> {
  throwIfAborted(signal, 'opening a database session');
  const client = new pg.Client({ connectionString, application_name: applicationName });
  client.on('error', () => undefined);
  await client.connect();
  if (signal?.aborted) {
    await client.end().catch(() => undefined);
    throwIfAborted(signal, 'opening a database session');
  }
  return client;
}
