/**
 * Client of the ERP vendor's upgrade platform (Odoo's upgrade.odoo.com), reached at
 * `FORJA_UPGRADE_SERVICE_URL`, speaking the protocol of the vendor's current script (the one the
 * documentation's on-premise page runs, `python <(curl -s https://upgrade.odoo.com/upgrade)`;
 * read, not copied):
 *
 * - JSON-RPC 2.0 POSTs under `upgrade/request/`: `create` (`contract, target, aim, actuator,
 *   env_vars, ssh_key` — the public key that will move the dump, `api_version` "0.2") answers
 *   `request_id, token, assigned_host_uri`; every later call goes to `https://<assigned_host_uri>`.
 *   `process` (`token`) answers `is_pg_version_compatible`; `status` (`token`) answers `status`
 *   (`new → pending → progress → done | failed | cancelled`), `host_uri`, `reason`, `archived`;
 *   `transfer/start` (`token, transfer_type` upload | download) answers `ssh_port`, `known_hosts`
 *   and, for a download, `dump_name`; `transfer/stop` (`token`) closes it. `logs?token=` is a GET
 *   read from a byte with `Range`. Refusals come as `result.error`, or `error.data.message`.
 * - The dump moves with rsync over SSH (sshTransfer.ts), never in an HTTP body.
 *
 * The older `database/v1/*` HTTP API, which took the dump as a POST body, is documented only for
 * 8.0–12.0: Forja no longer speaks it.
 */
import { getText, rpcCall } from './platformRpc.ts';
import { type UpgradeRequestRef, UpgradeServiceError } from './upgradeServiceError.ts';
import { type UpgradeState, upgradeStateOf } from './upgradeState.ts';

export type UpgradeAim = 'test' | 'production';

export interface CreateRequestInput {
  /** The subscription code; never logged, masked in every error. */
  contract: string;
  aim: UpgradeAim;
  /** The ERP version to reach, `17.0`. */
  target: string;
  /** `VAR=value` lines the platform's upgrade runs with (the script's `--env`). */
  envVars: string[];
  /** The public key (`ssh-ed25519 AAAA… comment`) whose private half moves the dump. */
  sshPublicKey: string;
}

export interface UpgradeStatus {
  state: UpgradeState;
  /** The platform's own word, for logs and for choosing what a resumed run does next. */
  platformState: string;
  reason: string | null;
  /** The node holding the request now. */
  hostUri: string;
  /** The platform archived the request: it cannot be resumed, a new one must be made. */
  archived: boolean;
}

/** Where to rsync for one transfer: the SSH port on the request's node, its host keys, and (download) the result's name. */
export interface TransferGrant {
  sshPort: number;
  knownHosts: string;
  dumpName: string | null;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
}

export type UpgradeClient = ReturnType<typeof upgradeClient>;

const loopback = (hostname: string) => ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);

/** The platform's base URL: https, or http only on this machine (the contract and the token travel in it). */
export function platformBaseUrl(value: string): URL {
  const url = new URL(value.endsWith('/') ? value : `${value}/`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback(url.hostname))) {
    throw new Error(`FORJA_UPGRADE_SERVICE_URL must be an https URL (http only on 127.0.0.1), not ${url.protocol}//${url.host}`);
  }
  return url;
}

/** `host` or `host:port`, nothing more: the platform names its node so, and Forja builds URLs and ssh targets from it. */
const HOST_URI = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?$/i;

/** The node's URL: https as the vendor's script does; http only when Forja was pointed at a platform on this machine and the node is on it too. */
export function nodeUrl(base: URL, hostUri: string): URL {
  if (!HOST_URI.test(hostUri)) throw new UpgradeServiceError(`the upgrade platform assigned the request to ${JSON.stringify(hostUri)}, which is not a host name`, 'protocol');
  const node = new URL(`https://${hostUri}/`);
  if (base.protocol === 'http:') {
    if (!loopback(node.hostname)) throw new UpgradeServiceError(`the upgrade platform on ${base.host} assigned the request to ${hostUri}: a platform reached over http may only use this machine`, 'protocol');
    return new URL(`http://${hostUri}/`);
  }
  return node;
}

/** @param idleMs how long a call may stay silent (the vendor's script waits 60 s). */
export function upgradeClient(baseUrl: string, { idleMs = 60_000 }: { idleMs?: number } = {}) {
  const base = platformBaseUrl(baseUrl);
  const onNode = (ref: UpgradeRequestRef) => nodeUrl(base, ref.hostUri);
  const call = (what: string, signal: AbortSignal | undefined, secrets: (string | undefined)[]) => ({ what, signal, idleMs, secrets });
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

  return {
    baseUrl: base.href,

    async createRequest(input: CreateRequestInput, { signal }: CallOptions = {}): Promise<UpgradeRequestRef> {
      const { contract, aim, target, envVars, sshPublicKey } = input;
      const params = { contract, target, aim, actuator: 'cli', env_vars: envVars, ssh_key: `${sshPublicKey.trim()}\n`, api_version: '0.2' };
      const answer = await rpcCall(base, 'upgrade/request/create', params, call(`create an upgrade request (${aim}, to ${target})`, signal, [contract]));
      const id = answer.request_id;
      if ((typeof id !== 'number' && typeof id !== 'string') || typeof answer.token !== 'string' || typeof answer.assigned_host_uri !== 'string') {
        throw new UpgradeServiceError('the upgrade platform created a request but did not give its request_id, token and assigned_host_uri', 'protocol');
      }
      const ref = { requestId: String(id), token: answer.token, hostUri: answer.assigned_host_uri };
      nodeUrl(base, ref.hostUri);
      return ref;
    },

    /** Asks the platform to upgrade the uploaded dump; says whether this machine's PostgreSQL can restore the result. */
    async process(ref: UpgradeRequestRef, { signal }: CallOptions = {}): Promise<{ pgVersionCompatible: boolean }> {
      const answer = await rpcCall(onNode(ref), 'upgrade/request/process', { token: ref.token }, call(`process request ${ref.requestId}`, signal, [ref.token]));
      if (typeof answer.is_pg_version_compatible !== 'boolean') throw new UpgradeServiceError(`the upgrade platform's answer to process request ${ref.requestId} lacks is_pg_version_compatible`, 'protocol');
      return { pgVersionCompatible: answer.is_pg_version_compatible };
    },

    async status(ref: UpgradeRequestRef, { signal }: CallOptions = {}): Promise<UpgradeStatus> {
      const answer = await rpcCall(onNode(ref), 'upgrade/request/status', { token: ref.token }, call(`read the status of request ${ref.requestId}`, signal, [ref.token]));
      if (typeof answer.status !== 'string' || typeof answer.host_uri !== 'string') {
        throw new UpgradeServiceError(`the upgrade platform's status of request ${ref.requestId} has no status or host_uri`, 'protocol', { request: ref });
      }
      nodeUrl(base, answer.host_uri);
      return { state: upgradeStateOf(answer.status).state, platformState: answer.status, reason: text(answer.reason), hostUri: answer.host_uri, archived: answer.archived === true };
    },

    async startTransfer(ref: UpgradeRequestRef, type: 'upload' | 'download', { signal }: CallOptions = {}): Promise<TransferGrant> {
      const what = `open the ${type} of request ${ref.requestId}`;
      const answer = await rpcCall(onNode(ref), 'upgrade/request/transfer/start', { token: ref.token, transfer_type: type }, call(what, signal, [ref.token]));
      const port = Number(answer.ssh_port);
      if (!Number.isInteger(port) || port < 1 || port > 65535 || typeof answer.known_hosts !== 'string' || answer.known_hosts.trim() === '') {
        throw new UpgradeServiceError(`the upgrade platform's answer to ${what} lacks a usable ssh_port and known_hosts`, 'protocol');
      }
      const dumpName = text(answer.dump_name);
      if (type === 'download' && (dumpName === null || !/^[\w.-]+$/.test(dumpName) || dumpName.startsWith('.'))) {
        throw new UpgradeServiceError(`the upgrade platform's answer to ${what} names no usable dump_name (${JSON.stringify(answer.dump_name ?? null)})`, 'protocol');
      }
      return { sshPort: port, knownHosts: answer.known_hosts, dumpName };
    },

    async stopTransfer(ref: UpgradeRequestRef, { signal }: CallOptions = {}): Promise<void> {
      await rpcCall(onNode(ref), 'upgrade/request/transfer/stop', { token: ref.token }, call(`close the transfer of request ${ref.requestId}`, signal, [ref.token]));
    },

    /** The request's log from byte `from` (the platform streams it while it works). */
    async logs(ref: UpgradeRequestRef, from: number, { signal }: CallOptions = {}): Promise<string> {
      const url = new URL('upgrade/request/logs', onNode(ref));
      url.searchParams.set('token', ref.token);
      const { text: log } = await getText(url, { range: `bytes=${from}-` }, call(`read the log of request ${ref.requestId}`, signal, [ref.token]));
      return log;
    },
  };
}
