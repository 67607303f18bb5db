/**
 * What must answer 200 before a started ERP counts as running. In threaded mode Odoo answers
 * `/web/health` before its registry is loaded (odoo/service/server.py serves HTTP at once;
 * addons/web/controllers/webclient.py, health), so the instance's own login page is asked too:
 * `/web/login?db=<database>` renders only once that database's registry is loaded
 * (addons/web/controllers/home.py, web_login). On 17.0+ `/web/health?db_server_status=1` also
 * says whether the ERP reaches its database server (500 when it does not).
 */
export function readinessPaths(target: { database: string; erpVersion: string }): string[] {
  const health = Number.parseInt(target.erpVersion, 10) >= 17 ? '/web/health?db_server_status=1' : '/web/health';
  return [health, `/web/login?db=${encodeURIComponent(target.database)}`];
}

/** Polls the readiness paths until each answers 200 in one round, or fails after `timeoutMs` naming the last answer. */
export async function waitForReady(url: string, target: { database: string; erpVersion: string }, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const paths = readinessPaths(target);
  let last = 'no answer';
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    const failing = await firstNotReady(url, paths);
    if (failing === null) return;
    last = failing;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the ERP at ${url} was not ready within ${Math.round(timeoutMs / 1000)} s: it must answer 200 on ${paths.join(' and ')} (last: ${last})`);
}

/** The first path that does not answer 200, with what it answered; null when all do. Redirects are answers, not followed. */
async function firstNotReady(url: string, paths: string[]): Promise<string | null> {
  for (const path of paths) {
    try {
      const response = await fetch(`${url}${path}`, { redirect: 'manual', signal: AbortSignal.timeout(5000) });
      await response.body?.cancel();
      if (response.status !== 200) return `${path} answered HTTP ${response.status}`;
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return `${path}: ${cause?.code ?? cause?.message ?? (error as Error).message}`;
    }
  }
  return null;
}

/**
 * Whether the ERP's database manager answers: `/web/database/list` (JSON-RPC) gives the databases
 * only while `list_db` is on (addons/web/controllers/database.py, list; odoo/service/db.py,
 * list_dbs raises AccessDenied otherwise). The ERP ignores a configuration file it cannot read and
 * then keeps the manager open with the master password `admin`, so a started ERP is checked, not
 * trusted. Any answer but a list of databases counts as closed.
 */
export async function databaseManagerOpen(url: string, signal?: AbortSignal): Promise<boolean> {
  const timeout = AbortSignal.timeout(5000);
  const response = await fetch(`${url}/web/database/list`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'call', params: {}, id: 1 }),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  const body = (await response.json().catch(() => null)) as { result?: unknown } | null;
  return Array.isArray(body?.result);
}
