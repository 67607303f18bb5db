import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import type { DatabaseManager } from './databaseManager.ts';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The fields of a urlencoded or multipart form, as werkzeug gives them to a route. */
function formFields(req: IncomingMessage): Promise<Map<string, string>> {
  const fields = new Map<string, string>();
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(req.headers['content-type'] ?? '')) {
    req.resume();
    return Promise.resolve(fields);
  }
  return new Promise((resolveFields, reject) => {
    const parser = busboy({ headers: req.headers });
    parser.on('field', (name, value) => fields.set(name, value));
    parser.on('file', (_name, file) => file.resume());
    parser.on('close', () => resolveFields(fields));
    parser.on('error', reject);
    req.pipe(parser);
  });
}

/**
 * The manager page (`_render_template`, addons/web/controllers/database.py, with
 * web/static/src/public/database_manager.qweb.html): the databases, the warning while the master
 * password is the default, or only that the manager is disabled.
 */
async function managerPage(manager: DatabaseManager, error?: string): Promise<string> {
  const notice = !manager.listDb
    ? '<div class="alert alert-danger text-center">The database manager has been disabled by the administrator</div>'
    : `${(await manager.insecure()) ? '<div class="alert alert-warning">Warning, your Odoo database manager is not protected. Please set a master password to secure it.</div>' : ''}
<ul>${manager.listDatabases(true).map((name) => `<li>${escapeHtml(name)}</li>`).join('')}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Odoo</title></head>
<body><main>${error ? `<div class="alert alert-danger">${escapeHtml(error)}</div>` : ''}${notice}</main></body></html>
`;
}

const html = (res: ServerResponse, status: number, body: string) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);

/** The route's verb in the error (`_render_exception`: "Could not backup database. …") and the exception's http_status, 422 by default. */
async function renderException(res: ServerResponse, manager: DatabaseManager, verb: string, error: unknown): Promise<void> {
  const status = (error as { httpStatus?: number }).httpStatus ?? 422;
  html(res, status, await managerPage(manager, `Could not ${verb} database. ${(error as Error).message}`));
}

/**
 * `/web/database/*` as the real ERP routes it (addons/web/controllers/database.py): `manager` and
 * `selector` pages, `backup` and `drop` (POST only, no CSRF token, `verify_access` first) and the
 * JSON-RPC `list`. Other routes there (create, duplicate, restore, rename, change_password) are
 * not imitated: Forja never relies on them, and they answer 404 here.
 */
export async function databaseRoute(req: IncomingMessage, res: ServerResponse, path: string, manager: DatabaseManager): Promise<boolean> {
  const route = path.slice('/web/database/'.length);
  if (route === 'manager' || route === 'selector') {
    html(res, 200, await managerPage(manager));
    return true;
  }
  if (route === 'list') {
    await jsonRpcList(req, res, manager);
    return true;
  }
  if (route !== 'backup' && route !== 'drop') return false;
  if (req.method !== 'POST') {
    req.resume();
    res.writeHead(405, { allow: 'POST', 'content-type': 'text/html; charset=utf-8' }).end('<h1>Method Not Allowed</h1>\n');
    return true;
  }
  const form = await formFields(req);
  const name = form.get('name') ?? '';
  try {
    await manager.verifyAccess(form.get('master_pwd') ?? '');
    if (route === 'drop') {
      await manager.drop(name);
      res.writeHead(303, { location: '/web/database/manager' }).end();
      return true;
    }
    const format = form.get('backup_format') ?? 'zip';
    const dump = await manager.backup(name, format);
    const at = new Date().toISOString().slice(0, 19).replace('T', '_').replaceAll(':', '-');
    res.writeHead(200, {
      'content-type': format === 'zip' ? 'application/zip' : 'application/octet-stream',
      'content-disposition': `attachment; filename="${encodeURIComponent(`${name}_${at}.${format}`)}"`,
      'content-length': dump.length,
    });
    res.end(dump);
  } catch (error) {
    await renderException(res, manager, route, error);
  }
  return true;
}

/** `list` (type jsonrpc): the databases, or the AccessDenied error object while the manager is disabled (odoo/http.py, JsonRPCDispatcher). */
async function jsonRpcList(req: IncomingMessage, res: ServerResponse, manager: DatabaseManager): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let id: unknown = null;
  try {
    id = (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { id?: unknown }).id ?? null;
  } catch {
    // the real dispatcher answers a body that is not JSON with a JSON-RPC error too; the id stays null
  }
  let body: object;
  try {
    body = { jsonrpc: '2.0', id, result: manager.listDatabases() };
  } catch (error) {
    const message = (error as Error).message;
    body = { jsonrpc: '2.0', id, error: { code: 200, message: 'Odoo Server Error', data: { name: 'odoo.exceptions.AccessDenied', message, arguments: [message] } } };
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
