import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatBytes } from '#shared/formatBytes.ts';
import { abortError } from '../../abortError.ts';
import { type SshTarget, downloadOverSsh, hostOf, transferFiles, transferKey, uploadOverSsh } from './sshTransfer.ts';
import { type UpgradeAim, type UpgradeClient, type UpgradeStatus } from './upgradeClient.ts';
import { type UpgradeRequestRef, UpgradeServiceError, maskSecret, redact } from './upgradeServiceError.ts';
import { type UpgradePhase, upgradeStateOf } from './upgradeState.ts';

/** The name the vendor's script gives an uploaded dump file on the node. */
export const ORIGIN_DUMP_NAME = 'origin.dump';
/** What a download brings besides the dump (the script's list; a missing one is skipped). */
export const RESULT_EXTRAS = ['filestore', 'upgrade-report.html', 'upgrade.log'] as const;

export interface RunUpgradeInput {
  client: UpgradeClient;
  contract: string;
  aim: UpgradeAim;
  target: string;
  /** `VAR=value` lines for the platform's run. */
  envVars?: string[] | undefined;
  /** The dump to upload (a pg_dump custom archive); made by `makeDump` when it is not there and an upload is due. */
  dump: string;
  makeDump?: (() => Promise<void>) | undefined;
  /** Where the result lands: `<dumpName>` (a directory dump or a zip), `filestore/`, the report and the log. */
  resultDir: string;
  /** Forja's private folder for the request's key pair and the node's host keys (0700: the key reads the database). */
  keyDir: string;
  /** The node's account and folder for transfers: the script's `odoo` and `/data` unless configured. */
  sshUser?: string | undefined;
  dataPath?: string | undefined;
  /** A request an earlier attempt created (its step facts): the run continues it instead of creating another. */
  resume?: UpgradeRequestRef | undefined;
  /** Called, and awaited, as soon as the platform gave the request (and whenever its node changes): record it before anything else happens. */
  onRequest?: ((request: UpgradeRequestRef) => void | Promise<void>) | undefined;
}

export interface RunUpgradeOptions {
  signal?: AbortSignal | undefined;
  log?: ((line: string) => void | Promise<void>) | undefined;
  /** rsync's own lines. */
  toolLog?: Writable | undefined;
  /** Between two status reads (the vendor's script: 5 s). */
  pollMs?: number;
  /** How long to wait for the platform's processing (20–120 min is usual). */
  timeoutMs?: number;
  /** Tries of one upload or download before the run fails (retryable). */
  transferAttempts?: number;
  /** Failed status reads in a row that are waited out. */
  statusFailuresTolerated?: number;
}

export interface UpgradeOutcome {
  request: UpgradeRequestRef;
  status: UpgradeStatus;
  /** `resultDir`, holding `dumpName`. */
  dir: string;
  dumpName: string;
  /** False when the platform said this machine's PostgreSQL is older than its result needs. */
  pgVersionCompatible: boolean | null;
}

const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });

/**
 * The vendor script's state machine: create (or resume) → upload over rsync → process → poll
 * (relaying the platform's log) → download over rsync. Every error carries the request, so a
 * retry resumes it; the contract and the token never reach the log unmasked. An abort stops at
 * once; the platform keeps the request, which a later run resumes. An archived request (the
 * platform's word for one it will not resume) is replaced by a new one, as the script does.
 */
export async function runUpgrade(input: RunUpgradeInput, options: RunUpgradeOptions = {}): Promise<UpgradeOutcome> {
  const { client, contract, aim, target } = input;
  const { signal, pollMs = 5000, timeoutMs = 6 * 3600_000, transferAttempts = 3, statusFailuresTolerated = 5 } = options;
  const toolLog = options.toolLog ?? discard();
  const files = transferFiles(input.keyDir);
  let request = input.resume;
  let pgVersionCompatible: boolean | null = null;
  const say = async (line: string) => options.log?.(redact(`upgrade-service: ${line}`, [contract, request?.token]));
  const pause = (ms: number) => sleep(ms, undefined, { signal });
  const sshTarget = (ref: UpgradeRequestRef, port: number, knownHosts: string): SshTarget => ({
    host: hostOf(ref.hostUri),
    port,
    user: input.sshUser ?? 'odoo',
    path: input.dataPath ?? '/data',
    knownHosts,
  });
  const transfer = { files, log: toolLog, signal };

  const retried = async <T>(what: string, attempt: () => Promise<T>): Promise<T> => {
    for (let n = 1; ; n += 1) {
      try {
        return await attempt();
      } catch (error) {
        if (signal?.aborted || !(error instanceof UpgradeServiceError) || error.kind !== 'transport' || n >= transferAttempts) throw error;
        await say(`${what} interrupted (${error.message}); trying again (${n + 1} of ${transferAttempts})`);
        await pause(Math.min(pollMs, 1000 * 2 ** n));
      }
    }
  };

  const create = async (): Promise<UpgradeRequestRef> => {
    await mkdir(input.keyDir, { recursive: true, mode: 0o700 });
    const publicKey = await transferKey(files, `forja-upgrade-${target}`);
    await say(`creating a ${aim} request to ${target} (contract ${maskSecret(contract)})`);
    const ref = await client.createRequest({ contract, aim, target, envVars: input.envVars ?? [], sshPublicKey: publicKey }, { signal });
    request = ref;
    await input.onRequest?.(ref);
    await say(`request ${ref.requestId} created on ${ref.hostUri}`);
    return ref;
  };

  const upload = async (ref: UpgradeRequestRef) => {
    if (!existsSync(input.dump)) await input.makeDump?.();
    const { size } = await stat(input.dump);
    await say(`uploading the dump (${formatBytes(size)}) to request ${ref.requestId} over rsync`);
    await retried('the upload', async () => {
      const grant = await client.startTransfer(ref, 'upload', { signal });
      await uploadOverSsh(input.dump, sshTarget(ref, grant.sshPort, grant.knownHosts), ORIGIN_DUMP_NAME, transfer);
      await client.stopTransfer(ref, { signal });
    });
    await say(`uploaded ${formatBytes(size)}`);
  };

  const poll = async (ref: UpgradeRequestRef): Promise<UpgradeStatus> => {
    const deadline = Date.now() + timeoutMs;
    let seen = '';
    let failures = 0;
    let logBytes = 0;
    for (;;) {
      let status: UpgradeStatus | undefined;
      try {
        status = await client.status(ref, { signal });
        failures = 0;
      } catch (error) {
        if (signal?.aborted || !(error instanceof UpgradeServiceError) || error.kind !== 'transport' || ++failures > statusFailuresTolerated) throw error;
        await say(`could not read the status (${error.message}); waiting`);
      }
      if (status) {
        const line = describeStatus(status);
        if (line !== seen) await say(line);
        seen = line;
        logBytes = await relayLog(ref, logBytes);
        if (status.state !== 'pending' && status.state !== 'progress') return status;
      }
      if (Date.now() >= deadline) {
        const minutes = Math.round(timeoutMs / 60_000);
        throw new UpgradeServiceError(`request ${ref.requestId} is still ${status?.platformState ?? 'unanswered'} after ${minutes} min; a retry resumes it`, 'timeout');
      }
      await pause(pollMs);
    }
  };

  /** The platform's own log lines, as they come; a log that cannot be read is not the run's failure. */
  const relayLog = async (ref: UpgradeRequestRef, from: number): Promise<number> => {
    try {
      const text = await client.logs(ref, from, { signal });
      const complete = text.lastIndexOf('\n') + 1;
      for (const line of text.slice(0, complete).split('\n')) if (line.trim() !== '') await say(`platform: ${line.trimEnd()}`);
      return from + Buffer.byteLength(text.slice(0, complete));
    } catch (error) {
      if (signal?.aborted) throw error;
      return from;
    }
  };

  const download = async (ref: UpgradeRequestRef): Promise<string> => {
    await mkdir(input.resultDir, { recursive: true, mode: 0o700 });
    await say(`downloading the upgraded database of request ${ref.requestId} over rsync`);
    return retried('the download', async () => {
      const grant = await client.startTransfer(ref, 'download', { signal });
      const dumpName = grant.dumpName ?? '';
      await downloadOverSsh(sshTarget(ref, grant.sshPort, grant.knownHosts), [dumpName, ...RESULT_EXTRAS], input.resultDir, transfer);
      await client.stopTransfer(ref, { signal });
      if (!existsSync(`${input.resultDir}/${dumpName}`)) throw new UpgradeServiceError(`the upgrade platform offered ${dumpName} for request ${ref.requestId}, but the download brought no such file`, 'protocol');
      return dumpName;
    });
  };

  try {
    signal?.throwIfAborted();
    let phase: UpgradePhase = 'upload';
    let ref: UpgradeRequestRef;
    if (request) {
      const status = await client.status(request, { signal });
      if (status.archived) {
        await say(`request ${request.requestId} is archived on the platform (${describeStatus(status)}): starting a new one`);
        ref = await create();
      } else {
        ref = status.hostUri === request.hostUri ? request : { ...request, hostUri: status.hostUri };
        if (ref !== request) {
          request = ref;
          await input.onRequest?.(ref);
        }
        phase = upgradeStateOf(status.platformState).phase;
        await say(`resuming request ${ref.requestId}: ${describeStatus(status)}`);
      }
    } else {
      if (!existsSync(input.dump) && !input.makeDump) await stat(input.dump);
      ref = await create();
    }
    if (phase === 'upload') {
      await upload(ref);
      phase = 'process';
    }
    if (phase === 'process') {
      ({ pgVersionCompatible } = await client.process(ref, { signal }));
      await say(`request ${ref.requestId} sent to processing`);
      if (!pgVersionCompatible) await say('the platform says this PostgreSQL is older than the upgraded dump needs: its restore may fail');
    }
    const status = await poll(ref);
    if (status.state === 'failed' || status.state === 'cancelled') {
      const why = status.reason ?? 'the platform gave no reason';
      throw new UpgradeServiceError(`the upgrade platform ${status.state === 'failed' ? 'failed' : 'cancelled'} request ${ref.requestId}: ${why}`, status.state, {
        platformState: status.platformState,
      });
    }
    const dumpName = await download(ref);
    await say(`downloaded ${dumpName}${existsSync(`${input.resultDir}/filestore`) ? ' and its filestore/' : ''}`);
    return { request: ref, status, dir: input.resultDir, dumpName, pgVersionCompatible };
  } catch (error) {
    if (signal?.aborted) throw abortError(signal, 'the upgrade-service run');
    if (error instanceof UpgradeServiceError) {
      const failed = new UpgradeServiceError(redact(error.message, [contract, request?.token]), error.kind, { ...error.details, ...(request ? { request } : {}) });
      await say(failed.message);
      throw failed;
    }
    throw error;
  }
}

function describeStatus(status: UpgradeStatus): string {
  const known = upgradeStateOf(status.platformState).known ? '' : ' (a state Forja does not know; still waiting)';
  return `state ${status.platformState}${known}${status.reason ? `: ${status.reason}` : ''}`;
}
