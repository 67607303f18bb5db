import pg from 'pg';
import { abortError } from '../abortError.ts';

/** What the cancelling session calls itself: never one of the names it cancels. */
const CANCELLER = 'forja-executor-cancel';
const POLL_MS = 50;

/** What `cancelBackendsOf` did. */
export interface BackendsCancelled {
  /** Sessions sent a cancel (an idle one has nothing to cancel). */
  cancelled: number;
  /** Sessions still there after the grace, terminated. */
  terminated: number;
}

/**
 * Ends every session tagged `applicationName` on the server of `adminUrl` (a job's own sessions:
 * its connections and its pg tools'), from a session of its own: `pg_cancel_backend` first, which
 * stops the statement running and lets the client end cleanly, then `pg_terminate_backend` for
 * those still there after `graceMs`. Resolves once none is left, or 5 s after terminating them.
 * The admin role must be allowed to signal them: a superuser, or a member of the instance roles
 * (as `databaseAdmin` makes it).
 */
export async function cancelBackendsOf(adminUrl: string, applicationName: string, { graceMs = 2_000 }: { graceMs?: number } = {}): Promise<BackendsCancelled> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: CANCELLER });
  client.on('error', () => undefined);
  await client.connect();
  const tagged = `from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`;
  const signalled = async (action: 'pg_cancel_backend' | 'pg_terminate_backend') =>
    (await client.query<{ count: number }>(`select count(*) filter (where ${action}(pid))::int as count ${tagged}`, [applicationName])).rows[0]?.count ?? 0;
  const gone = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query<{ count: number }>(`select count(*)::int as count ${tagged}`, [applicationName]);
      if ((rows[0]?.count ?? 0) === 0) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolveLater) => setTimeout(resolveLater, POLL_MS));
    }
  };
  try {
    const cancelled = await signalled('pg_cancel_backend');
    if (await gone(graceMs)) return { cancelled, terminated: 0 };
    const terminated = await signalled('pg_terminate_backend');
    await gone(5_000);
    return { cancelled, terminated };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Where and whom `cancellingOnAbort` cancels, and whom it tells. */
export interface CancelOnAbort {
  signal: AbortSignal;
  adminUrl: string;
  applicationName: string;
  graceMs?: number;
  /** Hears what the cancel did, or why it could not be done. */
  report: (line: string) => void;
}

/**
 * Runs `work`; when `signal` fires meanwhile, cancels the sessions tagged `applicationName`
 * (cancelBackendsOf) and rejects with the abort's reason (abortError) once they are gone, without
 * waiting for `work` to notice. `work` that fails because of the abort gets the same rejection.
 */
export async function cancellingOnAbort<T>(what: string, work: () => Promise<T>, { signal, adminUrl, applicationName, graceMs, report }: CancelOnAbort): Promise<T> {
  if (signal.aborted) throw abortError(signal, what);
  let cancelling: Promise<void> | undefined;
  let onAbort = () => undefined as void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      cancelling = cancelBackendsOf(adminUrl, applicationName, graceMs === undefined ? {} : { graceMs }).then(
        ({ cancelled, terminated }) =>
          report(`aborted: cancelled the statements of ${cancelled} session(s) of ${applicationName}${terminated > 0 ? `, terminated the ${terminated} still there after the grace` : ''}`),
        (error: unknown) => report(`aborted, but cannot cancel the sessions of ${applicationName}: ${error instanceof Error ? error.message : String(error)}`),
      );
      void cancelling.then(() => reject(abortError(signal, what)));
    };
  });
  aborted.catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  const running = work();
  running.catch(() => undefined);
  try {
    return await Promise.race([running, aborted]);
  } catch (error) {
    if (!signal.aborted) throw error;
    await cancelling;
    throw abortError(signal, what);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
