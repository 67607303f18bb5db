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
