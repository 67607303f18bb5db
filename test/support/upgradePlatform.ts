import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';

/**
 * A stand-in for the vendor's upgrade platform on 127.0.0.1, speaking the documented HTTP API
 * (paths, fields, `failures`, the `request` object; see upgradeClient.ts): `draft` → (upload)
 * `pending` → (process) `progress` → (after `progressPolls` status reads) `done` | `failed`, or
 * `cancelled`. "Upgrading" appends a marker to the uploaded dump. Faults are set on `faults`.
 */
export interface PlatformFaults {
  /** Drop the connection once this many upload bytes arrived, `times` times. */
  dropUpload?: { afterBytes: number; times: number };
  /** Stop reading upload bodies after their first bytes (the client blocks on back-pressure). */
  stallUpload?: boolean;
  /** Send this many download bytes, then hold the connection until `dropHeldDownloads()`, `times` times. */
  dropDownload?: { afterBytes: number; times: number };
  /** Processing ends `failed` with this `customer_message`. */
  failProcessing?: string;
  /** Processing stays `progress` until `release()`. */
  holdProcessing?: boolean;
  /** The next N status reads answer HTTP 502 with an HTML page. */
  statusErrors?: number;
}

export interface ImitatedRequest {
  id: number;
  key: string;
  contract: string;
  email: string;
  target: string;
  aim: string;
  filename: string;
  state: 'draft' | 'pending' | 'progress' | 'done' | 'failed' | 'cancelled';
  customerMessage: string | null;
  dump: Buffer | null;
  received: number;
  polls: number;
}

type Endpoint = 'create' | 'upload' | 'uploadCompleted' | 'process' | 'status' | 'download';

const marker = (request: ImitatedRequest) => Buffer.from(`\n-- upgraded to ${request.target} by the imitation platform (request ${request.id})\n`);

export async function startUpgradePlatform({ contracts = ['M123456-abcdef'], targets = ['16.0', '17.0', '18.0'], progressPolls = 2 } = {}) {
  const requests = new Map<number, ImitatedRequest>();
  const counts: Record<Endpoint, number> = { create: 0, upload: 0, uploadCompleted: 0, process: 0, status: 0, download: 0 };
  const faults: PlatformFaults = {};
  const downloadRanges: (string | null)[] = [];
  const stalled = new Set<IncomingMessage>();
  const held = new Set<ServerResponse>();
  let nextId = 10534;
  let url = '';

  const json = (res: ServerResponse, body: unknown, status = 200) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, ...failures: Record<string, unknown>[]) => json(res, { failures });
  const result = (request: ImitatedRequest) => Buffer.concat([request.dump ?? Buffer.alloc(0), marker(request)]);
  const requestJson = (r: ImitatedRequest) => {
    const zone = `${url}/database/eu1/${r.id}/${r.key}`;
    return {
      id: r.id, key: r.key, email: r.email, target: r.target, aim: r.aim, filename: r.filename, timezone: null, state: r.state,
      status_url: `${zone}/status`, notes_url: `${zone}/upgraded/notes`, original_dump_url: `${zone}/original/archive`,
      upgraded_dump_url: `${zone}/upgraded/archive`, upgraded_sql_url: `${zone}/upgraded/sql`,
      filesize: r.dump ? `${(r.dump.length / 1024).toFixed(2)} Kb` : null, customer_message: r.customerMessage,
      estimated_time: r.state === 'progress' ? '00:05' : null, database_version: r.dump ? '16.0' : null, postgresql: '15',
    };
  };

  async function fieldsOf(req: IncomingMessage, query: URLSearchParams): Promise<URLSearchParams> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const fields = new URLSearchParams(query);
    for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString())) fields.set(name, value);
    return fields;
  }

  const find = (res: ServerResponse, fields: URLSearchParams): ImitatedRequest | undefined => {
    const request = requests.get(Number(fields.get('request')));
    if (request && request.key === fields.get('key')) return request;
    refuse(res, { reason: 'REQUEST:NOT_FOUND', message: `Can not find request ${fields.get('request') ?? ''}` });
    return undefined;
  };

  function create(res: ServerResponse, fields: URLSearchParams) {
    counts.create += 1;
    const failures: Record<string, unknown>[] = [];
    for (const name of ['contract', 'email', 'target', 'aim', 'filename']) {
      if (!fields.get(name)) failures.push({ reason: `${name.toUpperCase()}:MISSING`, message: `Missing value for "${name}"` });
    }
    const [contract, target, aim] = [fields.get('contract') ?? '', fields.get('target') ?? '', fields.get('aim') ?? ''];
    if (contract && !contracts.includes(contract)) failures.push({ reason: 'CONTRACT:NOT_FOUND', code: contract, message: `Can not find contract ${contract}` });
    if (target && !targets.includes(target)) failures.push({ reason: 'TARGET:INVALID', value: target, expected: targets, message: `Invalid value "${target}"` });
    if (aim && !['test', 'production'].includes(aim)) failures.push({ reason: 'AIM:INVALID', value: aim, expected: ['test', 'production'], message: `Invalid value "${aim}"` });
    if (failures.length > 0) return refuse(res, ...failures);
    const request: ImitatedRequest = {
      id: nextId++, key: `${randomBytes(16).toString('base64url')}==`, contract, email: fields.get('email') ?? '', target, aim,
      filename: fields.get('filename') ?? '', state: 'draft', customerMessage: null, dump: null, received: 0, polls: 0,
    };
    requests.set(request.id, request);
    return json(res, { failures: [], request: requestJson(request) });
  }

  async function upload(req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
    counts.upload += 1;
    const request = find(res, query);
    if (!request) return req.resume();
    if (request.state !== 'draft') return refuse(res, { reason: 'STATE:INVALID', message: `Request ${request.id} is ${request.state}, not draft` });
    const chunks: Buffer[] = [];
    request.received = 0;
    const drop = faults.dropUpload && faults.dropUpload.times > 0 ? faults.dropUpload : undefined;
    if (drop) drop.times -= 1;
    const complete = await new Promise<boolean>((resolve) => {
      req.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        request.received += chunk.length;
        if (faults.stallUpload) {
          stalled.add(req);
          req.pause();
        } else if (drop && request.received >= drop.afterBytes) {
          req.socket.destroy();
          resolve(false);
        }
      });
      req.on('end', () => resolve(true));
      req.on('close', () => resolve(false));
    });
    if (!complete) return undefined;
    request.dump = Buffer.concat(chunks);
    request.state = 'pending';
    counts.uploadCompleted += 1;
    return json(res, { failures: [] });
  }

  function process(res: ServerResponse, request: ImitatedRequest) {
    counts.process += 1;
    if (request.state !== 'pending') return refuse(res, { reason: 'STATE:INVALID', message: `Request ${request.id} is ${request.state}, not pending` });
    request.state = 'progress';
    return json(res, { failures: [] });
  }

  function status(res: ServerResponse, request: ImitatedRequest) {
    if (request.state === 'progress' && ++request.polls >= progressPolls && !faults.holdProcessing) {
      request.state = faults.failProcessing ? 'failed' : 'done';
      request.customerMessage = faults.failProcessing ?? null;
    }
    return json(res, { failures: [], request: requestJson(request) });
  }

  function download(req: IncomingMessage, res: ServerResponse, request: ImitatedRequest | undefined) {
    counts.download += 1;
    downloadRanges.push(req.headers.range ?? null);
    if (!request || request.state !== 'done') return json(res, { failures: [{ reason: 'REQUEST:NOT_DONE', message: 'Nothing to download' }] }, 404);
    const body = result(request);
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start > body.length) return res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
    const slice = body.subarray(start);
    res.writeHead(range ? 206 : 200, {
      'content-type': 'application/octet-stream', 'content-length': slice.length, 'accept-ranges': 'bytes',
      ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    const drop = faults.dropDownload && faults.dropDownload.times > 0 ? faults.dropDownload : undefined;
    if (!drop) return res.end(slice);
    drop.times -= 1;
    held.add(res);
    return res.write(slice.subarray(0, drop.afterBytes));
  }

  const server = createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://127.0.0.1');
    const archive = /^\/database\/eu1\/(\d+)\/([^/]+)\/upgraded\/archive$/.exec(target.pathname);
    const handle = async () => {
      if (archive && req.method === 'GET') {
        const request = requests.get(Number(archive[1]));
        return download(req, res, request && request.key === decodeURIComponent(archive[2] ?? '') ? request : undefined);
      }
      if (target.pathname === '/database/v1/upload' && req.method === 'POST') return upload(req, res, target.searchParams);
      const fields = await fieldsOf(req, target.searchParams);
      if (target.pathname === '/database/v1/create') return create(res, fields);
      if (target.pathname === '/database/v1/status') {
        counts.status += 1;
        if (faults.statusErrors) {
          faults.statusErrors -= 1;
          return res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
        }
      }
      const request = ['/database/v1/process', '/database/v1/status'].includes(target.pathname) ? find(res, fields) : undefined;
      if (request && target.pathname === '/database/v1/process') return process(res, request);
      if (request) return status(res, request);
      return res.headersSent ? undefined : json(res, { failures: [{ reason: 'NOT_FOUND', message: 'Not found' }] }, 404);
    };
    handle().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url, requests, counts, faults, downloadRanges,
    /** The bytes a finished request delivers: the uploaded dump and the marker. */
    result: (id: number) => result(requests.get(id) as ImitatedRequest),
    /** Lets held processing end at the next status read. */
    release: () => void (faults.holdProcessing = false),
    cancel: (id: number) => void ((requests.get(id) as ImitatedRequest).state = 'cancelled'),
    /** Drops the connections of the downloads held half-sent. */
    dropHeldDownloads: () => {
      for (const res of held) res.socket?.destroy();
      held.clear();
    },
    close: async () => {
      for (const req of stalled) req.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type UpgradePlatform = Awaited<ReturnType<typeof startUpgradePlatform>>;
