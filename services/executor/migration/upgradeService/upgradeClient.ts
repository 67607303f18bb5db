/**
 * Client of the ERP vendor's public upgrade platform (Odoo's upgrade.odoo.com), reached at
 * `FORJA_UPGRADE_SERVICE_URL`.
 *
 * The protocol as found (read, not copied):
 * - Documented HTTP API, `odoo/odoo` `doc/webservices/upgrade.rst` (11.0/12.0; in 8.0/9.0
 *   `doc/reference/upgrade_api.rst`), and the client that drives it, `olilau/odoo-upgrade`
 *   `odoo_upgrade/odoo_upgrade.py`:
 *   - `POST database/v1/create`, form fields `contract`, `email`, `target`, `aim` (`test` |
 *     `production`), `filename` (informative), optional `timezone` → `{failures: [], request:
 *     {id, key, state, …}}`. `id` and the private `key` identify the request in every later call.
 *   - `POST database/v1/upload?key=…&request=…`, body the dump as `application/octet-stream`
 *     → `{failures}`. Not resumable: the docs point big dumps to `database/v1/request_sftp_access`
 *     (SSH keys → a temporary SFTP account whose `put -a` resumes), which needs an SSH client.
 *   - `POST database/v1/process` (`key`, `request`) → `{failures}`; `database/v1/skip_test` sets
 *     `delivered` without the vendor's tests.
 *   - `POST database/v1/status` (`key`, `request`) → `{failures, request}`: `state`,
 *     `customer_message`, `estimated_time`, `elapsed`, `database_version`, `filesize`, and the URLs
 *     `upgraded_dump_url` (`…/database/<zone>/<id>/<key>/upgraded/archive`), `upgraded_sql_url`,
 *     `original_dump_url`, `notes_url`, `status_url`. The download is a GET of `upgraded_dump_url`.
 *   - Errors: a non-empty `failures` list of `{reason, message}`, sometimes `value`/`code` and
 *     `expected` (`TARGET:INVALID` "Invalid value "5.0"" expecting 10.0…; `CONTRACT:NOT_FOUND`
 *     "Can not find contract M123456-abcxyz": the contract is echoed back, so it is masked).
 *     Clients also treat HTTP ≥ 400 as an error.
 * - The vendor's current script, served at https://upgrade.odoo.com/upgrade (a copy:
 *   `leemannd/odoo_upgrade_script` `odoo-upgrade.py`): JSON-RPC 2.0 POSTs to
 *   `upgrade/request/create` (`contract, target, aim, actuator, env_vars, ssh_key`) → `request_id,
 *   token`; `upgrade/request/transfer/start|stop` (`token, transfer_type`) around rsync over SSH;
 *   `upgrade/request/process` (`token`) → `is_pg_version_compatible`; `upgrade/request/status`
 *   (`token`) → `status`, `reason`; `upgrade/request/logs?token=` with `Range`. Its state machine
 *   is `new → pending → progress → done | failed | cancelled`, polled every 5 s; it saves the token
 *   to resume the same request after an interruption. Errors arrive as `result.error` or
 *   `error.data.message`.
 *
 * Forja speaks the documented HTTP API (plain HTTPS, no SSH) and takes its state names from both:
 * `draft` (or `new`) → `pending` → `progress` → `done` (or `delivered`) | `failed` | `cancelled`
 * (see upgradeState.ts). Control calls send form bodies rather than query strings, so the contract
 * stays out of URLs and access logs.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { type DownloadOptions, type DownloadedResult, downloadResult } from './downloadResult.ts';
import { checkAnswer, readAnswer, sendCall } from './platformHttp.ts';
import { type UpgradeRequestRef, UpgradeServiceError } from './upgradeServiceError.ts';
import { type UpgradeState, upgradeStateOf } from './upgradeState.ts';

export type UpgradeAim = 'test' | 'production';

export interface CreateRequestInput {
  /** The subscription code; never logged, masked in every error. */
  contract: string;
  aim: UpgradeAim;
  /** The ERP version to reach, `17.0`. */
  target: string;
  /** Informative for the platform: the dump's name. */
  filename: string;
  /** Required by the documented API; sent when given. */
  email?: string;
}

export interface UpgradeStatus {
  state: UpgradeState;
  /** The platform's own word, for logs and for choosing what a resumed run does next. */
  platformState: string;
  message: string | null;
  reason: string | null;
  downloadUrl: string | null;
  estimatedTime: string | null;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
}

export interface TransferOptions extends CallOptions {
  onProgress?: ((bytes: number, total: number | null) => void) | undefined;
}

export type UpgradeClient = ReturnType<typeof upgradeClient>;

/** The platform's base URL: https, or http only on this machine (the contract and the dump travel in it). */
export function platformBaseUrl(value: string): URL {
  const url = new URL(value.endsWith('/') ? value : `${value}/`);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`FORJA_UPGRADE_SERVICE_URL must be an https URL (http only on 127.0.0.1), not ${url.protocol}//${url.host}`);
  }
  return url;
}

/** @param idleMs how long a call may stay silent (the vendor's script waits 60 s). */
export function upgradeClient(baseUrl: string, { idleMs = 60_000 }: { idleMs?: number } = {}) {
  const base = platformBaseUrl(baseUrl);

  async function control(path: string, fields: Record<string, string>, what: string, signal: AbortSignal | undefined, secrets: string[]) {
    const body = Buffer.from(new URLSearchParams(fields).toString());
    const headers = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length, accept: 'application/json' };
    const call = { method: 'POST' as const, what, headers, body, signal, idleMs };
    const response = await sendCall(new URL(path, base), call);
    return checkAnswer(await readAnswer(response, call), response.statusCode ?? 0, what, secrets);
  }

  const refFields = (ref: UpgradeRequestRef) => ({ request: ref.requestId, key: ref.key });

  async function status(ref: UpgradeRequestRef, { signal }: CallOptions = {}): Promise<UpgradeStatus> {
    const answer = await control('database/v1/status', refFields(ref), `read the status of request ${ref.requestId}`, signal, [ref.key]);
    const request = answer.request as Record<string, unknown> | undefined;
    if (!request || typeof request.state !== 'string') {
      throw new UpgradeServiceError(`the upgrade platform's status of request ${ref.requestId} has no state`, 'protocol', { request: ref });
    }
    const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
    return {
      state: upgradeStateOf(request.state).state,
      platformState: request.state,
      message: text(request.customer_message),
      reason: text(request.reason),
      downloadUrl: text(request.upgraded_dump_url),
      estimatedTime: text(request.estimated_time),
    };
  }

  return {
    baseUrl: base.href,

    async createRequest(input: CreateRequestInput, { signal }: CallOptions = {}): Promise<UpgradeRequestRef> {
      const { contract, aim, target, filename, email } = input;
      const fields = { contract, aim, target, filename, ...(email ? { email } : {}) };
      const answer = await control('database/v1/create', fields, `create an upgrade request (${aim}, to ${target})`, signal, [contract]);
      const request = answer.request as Record<string, unknown> | undefined;
      const id = request?.id;
      if ((typeof id !== 'number' && typeof id !== 'string') || typeof request?.key !== 'string') {
        throw new UpgradeServiceError('the upgrade platform created a request but did not give its id and key', 'protocol');
      }
      return { requestId: String(id), key: request.key };
    },

    /** Streams the dump (re-sent whole on a retry: the HTTPS upload cannot resume) and returns its size and sha256. */
    async upload(ref: UpgradeRequestRef, file: string, { signal, onProgress }: TransferOptions = {}): Promise<{ bytes: number; sha256: string }> {
      const { size } = await stat(file);
      const hash = createHash('sha256');
      let sent = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          sent += chunk.length;
          onProgress?.(sent, size);
          done(null, chunk);
        },
      });
      const url = new URL('database/v1/upload', base);
      url.searchParams.set('key', ref.key);
      url.searchParams.set('request', ref.requestId);
      const what = `upload the dump of request ${ref.requestId}`;
      const headers = { 'content-type': 'application/octet-stream', 'content-length': size, accept: 'application/json' };
      const call = { method: 'POST' as const, what, headers, body: [createReadStream(file), counter] as const, signal, idleMs };
      const response = await sendCall(url, call);
      checkAnswer(await readAnswer(response, call), response.statusCode ?? 0, what, [ref.key]);
      if (sent !== size) throw new UpgradeServiceError(`${file} changed while it was uploaded (${sent} of ${size} bytes sent)`, 'transport');
      return { bytes: sent, sha256: hash.digest('hex') };
    },

    async process(ref: UpgradeRequestRef, { signal }: CallOptions = {}): Promise<void> {
      await control('database/v1/process', refFields(ref), `process request ${ref.requestId}`, signal, [ref.key]);
    },

    status,

    /** Downloads the upgraded dump beside `toFile`, resuming a partial copy by `Range`, then renames it into place. */
    async download(ref: UpgradeRequestRef, toFile: string, options: DownloadOptions = {}): Promise<DownloadedResult> {
      const url = options.url ?? (await status(ref, options)).downloadUrl;
      if (!url) throw new UpgradeServiceError(`request ${ref.requestId} has no upgraded dump to download yet`, 'protocol', { request: ref });
      const target = new URL(url, base);
      if (target.origin !== base.origin) {
        throw new UpgradeServiceError(`the upgraded dump of request ${ref.requestId} is offered on ${target.origin}, not on the platform's ${base.origin}`, 'protocol');
      }
      return downloadResult(ref, target, toFile, { ...options, idleMs });
    },
  };
}
