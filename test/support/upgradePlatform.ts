import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { installDebianPackage } from '#shared/local/debianPackage.ts';
import { freePort } from '#shared/local/freePort.ts';
import { parsePgUrl, pgToolEnv, urlForDatabase } from '#services/executor/database/pgServer.ts';
import { testCluster } from './postgres.ts';
import { runDir } from './runDir.ts';
import { newHostKey, sshdConfig, startSshd, stopSshd } from './sshd.ts';
import { storedZip } from './storedZip.ts';
import { onTeardown } from './teardown.ts';

const exec = promisify(execFile);

/**
 * An imitation of the vendor's upgrade platform on 127.0.0.1, written from its public client (the
 * script served at upgrade.odoo.com/upgrade, read in a public copy: `upgrade/request/*` JSON-RPC,
 * `transfer/start` giving `ssh_port` + `known_hosts` + `dump_name`, rsync over SSH as `odoo` to
 * `/data`, `origin.dump` up, the dump plus `filestore/`, `upgrade-report.html` and `upgrade.log`
 * down, restored with `pg_restore --format d`) and the documentation's on-premise page (the result
 * holds a dump and a `filestore/` to merge: attachments extracted from the database and new
 * standard files; a zip variant holds `dump.sql` and `filestore/`).
 *
 * - HTTP JSON-RPC only for control: there is no `/database/v1/*` (the legacy API that took the
 *   dump in a POST body); such a call is counted as `legacy` and answered 404, and `process`
 *   refuses a request whose dump did not arrive over rsync.
 * - A private sshd is the data node: `transfer/start` authorizes the request's public key (given
 *   at `create`) with a forced command that only runs `rsync --server` and maps `/data` to the
 *   request's folder; `transfer/stop` revokes it.
 * - "Upgrading" really happens on the test cluster: the uploaded custom dump is restored into a
 *   scratch database, every installed module's `latest_version` moves to the target, an
 *   attachment row is added whose file is in the returned `filestore/`, and the result is a
 *   `pg_dump -Fd` (or a zip with `dump.sql`) made with `--no-owner`.
 */
export interface PlatformFaults {
  /** The next N rsync sessions are cut before a byte moves (rsync: "connection unexpectedly closed"). */
  breakTransfers?: number;
  /** rsync sessions hang (a node that stopped reading) until the client gives up or is stopped. */
  stallTransfers?: boolean;
  /** `transfer/start` announces a host key that is not the node's. */
  wrongHostKey?: boolean;
  /** Processing ends `failed` with this reason. */
  failProcessing?: string;
  /** Processing stays `progress` until `release()`. */
  holdProcessing?: boolean;
  /** The next N status reads answer HTTP 502 with an HTML page. */
  statusErrors?: number;
  /** `create` assigns the request to this node instead of the platform's own address. */
  assignHost?: string;
}

export interface ImitatedRequest {
  id: number;
  token: string;
  contract: string;
  target: string;
  aim: string;
  envVars: string[];
  sshKey: string;
  state: 'new' | 'pending' | 'progress' | 'done' | 'failed' | 'cancelled';
  reason: string | null;
  archived: boolean;
  /** The request's node folder; `data/` is what the client sees as `/data`. */
  dir: string;
  /** sha256 and bytes of `origin.dump` as it arrived over rsync. */
  uploaded: { sha256: string; bytes: number } | null;
  polls: number;
  log: string;
  upgrading: Promise<void> | null;
  upgraded: boolean;
}

type Endpoint = 'create' | 'process' | 'status' | 'transferUpload' | 'transferDownload' | 'transferStop' | 'logs' | 'legacy';

/** The file the upgrade adds to the returned filestore, and the attachment row that names it. */
export const RETURNED_FILE = { path: 'ef/ef56upgraded', content: 'a new standard image of the target version\n', name: 'upgrade_banner.png' };

export async function startUpgradePlatform({
  contracts = ['M123456-abcdef'],
  targets = ['16.0', '17.0', '18.0'],
  progressPolls = 2,
  resultFormat = 'directory' as 'directory' | 'zip',
} = {}) {
  // Forja moves dumps with Debian's rsync, as the vendor's script does; the node needs it too.
  if (spawnSync('sh', ['-c', 'command -v rsync']).status !== 0) installDebianPackage('rsync', 'the upgrade-service tests need rsync: apt-get install rsync');
  const dir = runDir('upgrade-platform');
  const requests = new Map<number, ImitatedRequest>();
  const counts: Record<Endpoint, number> = { create: 0, process: 0, status: 0, transferUpload: 0, transferDownload: 0, transferStop: 0, logs: 0, legacy: 0 };
  const faults: PlatformFaults = {};
  let largestBody = 0;
  let nextId = 10534;
  const cluster = await testCluster();
  const adminUrl = cluster.urlFor('postgres');

  // The data node: a private sshd whose keys are granted per request and per transfer.
  const sshPort = await freePort();
  const hostKey = join(dir, 'host_ed25519_key');
  const otherHostKey = join(dir, 'other_host_key');
  const authorizedKeys = join(dir, 'authorized_keys');
  const serve = join(dir, 'serve-data');
  await writeFile(serve, SERVE_DATA, { mode: 0o755 });
  await writeFile(authorizedKeys, '', { mode: 0o600 });
  const config = join(dir, 'sshd_config');
  await writeFile(config, sshdConfig({ port: sshPort, hostKey, authorizedKeys }));
  await newHostKey(hostKey);
  await newHostKey(otherHostKey);
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 }).catch(() => undefined);
  const sshd = await startSshd(config, sshPort);
  onTeardown(() => stopSshd(sshd));
  const granted = new Map<number, string>();
  const writeGrants = () =>
    writeFile(authorizedKeys, [...granted].map(([id, key]) => `command="${serve} ${requests.get(id)?.dir ?? '/nonexistent'}",restrict ${key}\n`).join(''), { mode: 0o600 });
  const knownHosts = async (file: string) => `[127.0.0.1]:${sshPort} ${(await readFile(`${file}.pub`, 'utf8')).split(' ').slice(0, 2).join(' ')}\n`;

  const json = (res: ServerResponse, body: unknown, status = 200): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const answer = (res: ServerResponse, result: Record<string, unknown>): void => json(res, { jsonrpc: '2.0', id: null, result });
  const refuse = (res: ServerResponse, error: string): void => answer(res, { error });
  const byToken = (token: unknown) => [...requests.values()].find((request) => request.token === token);
  let host = '';

  const upgrade = async (request: ImitatedRequest) => {
    const data = join(request.dir, 'data');
    const scratch = `upgplat_${request.id}_${randomBytes(3).toString('hex')}`;
    const client = new pg.Client({ connectionString: adminUrl });
    const env = pgToolEnv(parsePgUrl(adminUrl));
    request.log += `Restoring the database dump\n`;
    await client.connect();
    try {
      await client.query(`create database ${scratch}`);
      await exec('pg_restore', ['--no-owner', '--no-acl', '--dbname', scratch, join(data, 'origin.dump')], { env });
      const work = new pg.Client({ connectionString: urlForDatabase(adminUrl, scratch) });
      await work.connect();
      try {
        request.log += `Upgrading to ${request.target}\n`;
        await work.query(`update ir_module_module set latest_version = regexp_replace(latest_version, '^[0-9]+\\.[0-9]+', $1) where state = 'installed'`, [request.target]);
        await work.query('insert into ir_attachment (name, store_fname) values ($1, $2)', [RETURNED_FILE.name, RETURNED_FILE.path]);
      } finally {
        await work.end();
      }
      const result = join(data, resultName(resultFormat));
      await rm(result, { recursive: true, force: true });
      const filestore = [[`filestore/${RETURNED_FILE.path}`, Buffer.from(RETURNED_FILE.content)]] as [string, Buffer][];
      if (resultFormat === 'directory') {
        await exec('pg_dump', ['--no-owner', '--format', 'd', '--file', result, scratch], { env });
        await mkdir(join(data, 'filestore', RETURNED_FILE.path, '..'), { recursive: true });
        await writeFile(join(data, 'filestore', RETURNED_FILE.path), RETURNED_FILE.content);
      } else {
        const { stdout } = await exec('pg_dump', ['--no-owner', '--format', 'p', scratch], { env, maxBuffer: 256 * 2 ** 20, encoding: 'buffer' });
        await writeFile(result, storedZip([['dump.sql', stdout], ...filestore]));
      }
      await writeFile(join(data, 'upgrade-report.html'), `<html><body><h1>Upgrade report</h1><p>Request ${request.id}: upgraded to ${request.target}.</p></body></html>\n`);
      await writeFile(join(data, 'upgrade.log'), request.log);
      request.log += `Upgrade done\n`;
      request.upgraded = true;
    } catch (error) {
      request.log += `Upgrade failed: ${(error as Error).message}\n`;
      request.state = 'failed';
      request.reason = `the imitation could not upgrade the dump: ${(error as Error).message.split('\n')[0]}`;
    } finally {
      await client.query(`drop database if exists ${scratch} with (force)`).catch(() => undefined);
      await client.end();
    }
  };

  const handlers: Record<string, (params: Record<string, unknown>, res: ServerResponse) => unknown> = {
    'upgrade/request/create': async (params, res) => {
      counts.create += 1;
      const { contract, target, aim, ssh_key: sshKey, env_vars: envVars, api_version: apiVersion } = params;
      if (apiVersion !== '0.2') return refuse(res, `Unsupported API version ${String(apiVersion)}: please use the latest upgrade script`);
      if (typeof contract !== 'string' || !contracts.includes(contract)) return refuse(res, `Unable to find a subscription for the contract ${String(contract)}`);
      if (typeof target !== 'string' || !targets.includes(target)) return refuse(res, `Invalid target version "${String(target)}": expected one of ${targets.join(', ')}`);
      if (aim !== 'test' && aim !== 'production') return refuse(res, `Invalid aim "${String(aim)}": expected test or production`);
      if (typeof sshKey !== 'string' || !/^ssh-[a-z0-9-]+ [A-Za-z0-9+/=]+( [^\n]*)?\n?$/.test(sshKey)) return refuse(res, 'The SSH public key is missing or malformed');
      const id = nextId++;
      const request: ImitatedRequest = {
        id,
        token: randomBytes(16).toString('hex'),
        contract,
        target,
        aim,
        envVars: Array.isArray(envVars) ? envVars.map(String) : [],
        sshKey: sshKey.trim(),
        state: 'new',
        reason: null,
        archived: false,
        dir: join(dir, 'requests', String(id)),
        uploaded: null,
        polls: 0,
        log: '',
        upgrading: null,
        upgraded: false,
      };
      await mkdir(join(request.dir, 'data'), { recursive: true });
      requests.set(id, request);
      answer(res, { request_id: id, token: request.token, assigned_host_uri: faults.assignHost ?? host });
    },
    'upgrade/request/transfer/start': async (params, res) => {
      const request = byToken(params.token);
      if (!request) return refuse(res, 'Request not found');
      const type = params.transfer_type;
      if (type === 'upload') {
        counts.transferUpload += 1;
        if (request.state !== 'new') return refuse(res, `The request is ${request.state}: its dump cannot be uploaded again`);
      } else if (type === 'download') {
        counts.transferDownload += 1;
        if (request.state !== 'done') return refuse(res, `The request is ${request.state}: nothing to download yet`);
      } else return refuse(res, `Invalid transfer type ${String(type)}`);
      await writeFile(join(request.dir, 'breaks'), String(faults.breakTransfers ?? 0));
      await writeFile(join(request.dir, 'stall'), faults.stallTransfers ? '1' : '0');
      faults.breakTransfers = 0;
      granted.set(request.id, request.sshKey);
      await writeGrants();
      answer(res, {
        ssh_port: sshPort,
        known_hosts: await knownHosts(faults.wrongHostKey ? otherHostKey : hostKey),
        ...(type === 'download' ? { dump_name: resultName(resultFormat) } : {}),
      });
    },
    'upgrade/request/transfer/stop': async (params, res) => {
      counts.transferStop += 1;
      const request = byToken(params.token);
      if (!request) return refuse(res, 'Request not found');
      granted.delete(request.id);
      await writeGrants();
      const origin = join(request.dir, 'data', 'origin.dump');
      // The script goes from `new` to `pending` once its upload is over, and resumes from the state the platform reports.
      if (request.state === 'new' && existsSync(origin)) {
        const bytes = await readFile(origin);
        request.uploaded = { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
        request.state = 'pending';
      }
      answer(res, {});
    },
    'upgrade/request/process': (params, res) => {
      counts.process += 1;
      const request = byToken(params.token);
      if (!request) return refuse(res, 'Request not found');
      if (request.state !== 'pending' || !request.uploaded) return refuse(res, `No dump was received for this request (${request.state}): upload it over rsync first`);
      request.state = 'progress';
      request.upgrading = upgrade(request);
      answer(res, { is_pg_version_compatible: true });
    },
    'upgrade/request/status': (params, res) => {
      counts.status += 1;
      const request = byToken(params.token);
      if (!request) return refuse(res, 'Request not found');
      if (faults.statusErrors && faults.statusErrors > 0) {
        faults.statusErrors -= 1;
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
        return;
      }
      if (request.state === 'progress') {
        request.polls += 1;
        if (faults.failProcessing) {
          request.state = 'failed';
          request.reason = faults.failProcessing;
        } else if (request.upgraded && request.polls >= progressPolls && !faults.holdProcessing) request.state = 'done';
      }
      answer(res, { status: request.state, host_uri: host, reason: request.reason, archived: request.archived });
    },
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://platform');
    if (url.pathname.startsWith('/database/v1/')) {
      counts.legacy += 1;
      req.resume();
      return json(res, { error: 'not found' }, 404);
    }
    if (req.method === 'GET' && url.pathname === '/upgrade/request/logs') {
      counts.logs += 1;
      const request = byToken(url.searchParams.get('token'));
      if (!request) return void res.writeHead(404).end();
      const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
      const bytes = Buffer.from(request.log);
      if (from >= bytes.length) return void res.writeHead(416).end();
      return void res.writeHead(206, { 'content-type': 'text/plain; charset=utf-8' }).end(bytes.subarray(from));
    }
    const handler = req.method === 'POST' ? handlers[url.pathname.slice(1)] : undefined;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      largestBody = Math.max(largestBody, body.length);
      if (!handler) return json(res, { error: 'not found' }, 404);
      let call: { jsonrpc?: unknown; params?: unknown };
      try {
        call = JSON.parse(body.toString('utf8')) as typeof call;
      } catch {
        return json(res, { jsonrpc: '2.0', id: null, error: { code: 200, message: 'Odoo Server Error', data: { message: 'Invalid JSON data' } } });
      }
      if (call.jsonrpc !== '2.0' || !call.params || typeof call.params !== 'object') {
        return json(res, { jsonrpc: '2.0', id: null, error: { code: 200, message: 'Odoo Server Error', data: { message: 'Invalid JSON-RPC request' } } });
      }
      Promise.resolve(handler(call.params as Record<string, unknown>, res)).catch((error: unknown) => json(res, { error: String(error) }, 500));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await Promise.all([...requests.values()].map((request) => request.upgrading?.catch(() => undefined)));
    await stopSshd(sshd);
  };
  onTeardown(close);

  return {
    url: `http://${host}`,
    host,
    sshPort,
    requests,
    counts,
    faults,
    /** The largest HTTP request body the platform received: control calls only, never a dump. */
    largestBody: () => largestBody,
    /** The names on the request's node folder (`/data`). */
    dataFiles: async (id: number) => (await readdir(join(requests.get(id)?.dir ?? '/nonexistent', 'data')).catch(() => [])).sort(),
    release() {
      faults.holdProcessing = false;
    },
    cancel(id: number) {
      const request = requests.get(id);
      if (request) request.state = 'cancelled';
    },
    archive(id: number) {
      const request = requests.get(id);
      if (request) request.archived = true;
    },
    /** Whether the request's SSH key may log in now (between transfer/start and transfer/stop). */
    granted: (id: number) => granted.has(id),
    uploadedSize: (id: number) => {
      const file = join(requests.get(id)?.dir ?? '/nonexistent', 'data', 'origin.dump');
      return existsSync(file) ? statSync(file).size : 0;
    },
    close,
  };
}

export type UpgradePlatform = Awaited<ReturnType<typeof startUpgradePlatform>>;

const resultName = (format: 'directory' | 'zip') => (format === 'zip' ? 'upgraded.zip' : 'upgraded.dump');

/**
 * The forced command of a granted key: `rsync --server` only, paths only below `/data`, which is
 * the request's `data/` folder. `breaks` holds how many sessions to cut first; `stall` makes the
 * node hang.
 */
const SERVE_DATA = `#!/bin/sh
set -f
root="$1"
breaks=$(cat "$root/breaks" 2>/dev/null || echo 0)
if [ "$breaks" -gt 0 ]; then echo $((breaks - 1)) > "$root/breaks"; echo "connection reset by the imitation" >&2; exit 12; fi
if [ "$(cat "$root/stall" 2>/dev/null)" = 1 ]; then sleep 120; exit 12; fi
set -- $SSH_ORIGINAL_COMMAND
if [ "$1" != rsync ] || [ "$2" != --server ]; then echo "this node only serves rsync" >&2; exit 1; fi
command=""
for word in "$@"; do
  case "$word" in
    *..*) echo "no .. on this node" >&2; exit 1 ;;
    /data|/data/*) word="$root/data\${word#/data}" ;;
    /*) echo "only /data is served" >&2; exit 1 ;;
  esac
  command="$command $word"
done
exec $command
`;
