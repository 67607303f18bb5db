import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatBytes } from '#shared/formatBytes.ts';
import { abortError } from '../../abortError.ts';
import { type DownloadedResult } from './downloadResult.ts';
import { type UpgradeAim, type UpgradeClient, type UpgradeStatus } from './upgradeClient.ts';
import { type UpgradeRequestRef, UpgradeServiceError, maskSecret, redact, redactFailures } from './upgradeServiceError.ts';
import { type UpgradePhase, upgradeStateOf } from './upgradeState.ts';

export interface RunUpgradeInput {
  client: UpgradeClient;
  contract: string;
  aim: UpgradeAim;
  target: string;
  email?: string | undefined;
  /** The dump to upgrade; `filename` (informative for the platform) defaults to its name. */
  dump: string;
  filename?: string | undefined;
  /** Where the upgraded dump lands, whole or not at all. */
  resultFile: string;
  /** A request an earlier attempt created (its step facts): the run continues it instead of creating another. */
  resume?: UpgradeRequestRef | undefined;
  /** Called, and awaited, as soon as the platform gave the request's id and key: record them before anything else happens. */
  onRequest?: ((request: UpgradeRequestRef) => void | Promise<void>) | undefined;
}

export interface RunUpgradeOptions {
  signal?: AbortSignal | undefined;
  log?: ((line: string) => void | Promise<void>) | undefined;
  /** Between two status reads (the vendor's script: 5 s). */
  pollMs?: number;
  /** How long to wait for the platform's processing (20–120 min is usual). */
  timeoutMs?: number;
  /** Tries of one upload or download before the run fails (retryable). */
  transferAttempts?: number;
  /** Failed status reads in a row that are waited out. */
  statusFailuresTolerated?: number;
}

export interface UpgradeOutcome extends DownloadedResult {
  request: UpgradeRequestRef;
  status: UpgradeStatus;
}

/**
 * Create (or resume), upload, process, poll, download. Every error carries the request, so a
 * retry resumes it; the contract and the request key never reach the log unmasked. An abort
 * stops at once; the platform keeps the request, which a later run can resume.
 */
export async function runUpgrade(input: RunUpgradeInput, options: RunUpgradeOptions = {}): Promise<UpgradeOutcome> {
  const { client, contract, aim, target } = input;
  const { signal, pollMs = 30_000, timeoutMs = 6 * 3600_000, transferAttempts = 3, statusFailuresTolerated = 5 } = options;
  let request = input.resume;
  const say = async (line: string) => options.log?.(redact(`upgrade-service: ${line}`, [contract, request?.key]));
  const pause = (ms: number) => sleep(ms, undefined, { signal });

  const retried = async <T>(what: string, attempt: (n: number) => Promise<T>): Promise<T> => {
    for (let n = 1; ; n += 1) {
      try {
        return await attempt(n);
      } catch (error) {
        if (signal?.aborted || !(error instanceof UpgradeServiceError) || error.kind !== 'transport' || n >= transferAttempts) throw error;
        await say(`${what} interrupted (${error.message}); trying again (${n + 1} of ${transferAttempts})`);
        await pause(Math.min(pollMs, 1000 * 2 ** n));
      }
    }
  };

  const upload = async (ref: UpgradeRequestRef) => {
    const { size } = await stat(input.dump);
    await say(`uploading ${basename(input.dump)} (${formatBytes(size)}) to request ${ref.requestId}`);
    const sent = await retried('the upload', () => {
      let quarter = 0;
      const onProgress = (bytes: number) => {
        const reached = Math.floor((bytes / Math.max(size, 1)) * 4);
        if (reached > quarter && reached < 4) say(`uploaded ${formatBytes(bytes)} of ${formatBytes(size)}`).catch(() => undefined);
        quarter = Math.max(quarter, reached);
      };
      return client.upload(ref, input.dump, { signal, onProgress });
    });
    await say(`uploaded ${formatBytes(sent.bytes)}, sha256 ${sent.sha256}`);
  };

  const poll = async (ref: UpgradeRequestRef): Promise<UpgradeStatus> => {
    const deadline = Date.now() + timeoutMs;
    let seen = '';
    let failures = 0;
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
        if (status.state !== 'pending' && status.state !== 'progress') return status;
      }
      if (Date.now() >= deadline) {
        const minutes = Math.round(timeoutMs / 60_000);
        throw new UpgradeServiceError(`request ${ref.requestId} is still ${status?.platformState ?? 'unanswered'} after ${minutes} min; a retry resumes it`, 'timeout');
      }
      await pause(pollMs);
    }
  };

  try {
    signal?.throwIfAborted();
    let phase: UpgradePhase = 'upload';
    if (request) {
      const status = await client.status(request, { signal });
      phase = upgradeStateOf(status.platformState).phase;
      await say(`resuming request ${request.requestId}: ${describeStatus(status)}`);
    } else {
      await stat(input.dump);
      const filename = input.filename ?? basename(input.dump);
      await say(`creating a ${aim} request to ${target} for ${filename} (contract ${maskSecret(contract)})`);
      request = await client.createRequest({ contract, aim, target, filename, ...(input.email ? { email: input.email } : {}) }, { signal });
      await input.onRequest?.(request);
      await say(`request ${request.requestId} created`);
    }
    const ref = request;
    if (phase === 'upload') {
      await upload(ref);
      phase = 'process';
    }
    if (phase === 'process') {
      await client.process(ref, { signal });
      await say(`request ${ref.requestId} sent to processing`);
    }
    const status = await poll(ref);
    if (status.state === 'failed' || status.state === 'cancelled') {
      const why = status.message ?? status.reason ?? 'the platform gave no reason';
      throw new UpgradeServiceError(`the upgrade platform ${status.state === 'failed' ? 'failed' : 'cancelled'} request ${ref.requestId}: ${why}`, status.state, {
        platformState: status.platformState,
      });
    }
    await say(`downloading the upgraded dump of request ${ref.requestId}`);
    const result = await retried('the download', () => client.download(ref, input.resultFile, { signal, url: status.downloadUrl ?? undefined }));
    await say(`downloaded ${formatBytes(result.bytes)} to ${basename(result.file)}, sha256 ${result.sha256}`);
    return { ...result, request: ref, status };
  } catch (error) {
    if (signal?.aborted) throw abortError(signal, 'the upgrade-service run');
    if (error instanceof UpgradeServiceError) {
      const secrets = [contract, request?.key];
      const { failures, ...details } = error.details;
      const failed = new UpgradeServiceError(redact(error.message, secrets), error.kind, {
        ...details,
        ...(failures ? { failures: redactFailures(failures, secrets) } : {}),
        ...(request ? { request } : {}),
      });
      await say(failed.message);
      throw failed;
    }
    throw error;
  }
}

function describeStatus(status: UpgradeStatus): string {
  const known = upgradeStateOf(status.platformState).known ? '' : ' (a state Forja does not know; still waiting)';
  const detail = status.message ?? status.reason;
  return `state ${status.platformState}${known}${detail ? `: ${detail}` : ''}${status.estimatedTime ? `, estimated ${status.estimatedTime}` : ''}`;
}
