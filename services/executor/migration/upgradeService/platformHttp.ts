import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { type Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { abortError } from '../../abortError.ts';
import { type PlatformFailure, UpgradeServiceError, describeFailures, redact, redactFailures } from './upgradeServiceError.ts';

/** One call to the platform. Its URL may carry the request key, so errors name `what`, never the URL. */
export interface PlatformCall {
  method: 'GET' | 'POST';
  what: string;
  headers?: Record<string, string | number>;
  /** A buffer, or a source piped through a transform (a counter) into the request. */
  body?: Buffer | readonly [Readable, Transform];
  signal?: AbortSignal | undefined;
  /** Fails the call when its connection stays silent this long (a stalled upload or download too). */
  idleMs: number;
}

const maxAnswerBytes = 1024 * 1024;

/** Sends the call and resolves with the response's head; the caller reads (or drains) its body. */
export function sendCall(url: URL, call: PlatformCall): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, { method: call.method, headers: call.headers, signal: call.signal, timeout: call.idleMs });
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(transportError(call, error));
    };
    request.on('timeout', () => request.destroy(new Error(`no answer for ${Math.round(call.idleMs / 1000)} s`)));
    request.on('error', fail);
    request.on('response', (response) => {
      settled = true;
      resolve(response);
    });
    if (call.body instanceof Buffer) request.end(call.body);
    else if (call.body) {
      const [source, through] = call.body as readonly [Readable, Transform];
      pipeline(source, through, request).catch((error: unknown) => {
        request.destroy(error as Error);
        fail(error);
      });
    } else request.end();
  });
}

/** What a failed transfer rejects with: the job's abort, or a retryable transport error. */
export function transportError(call: Pick<PlatformCall, 'what' | 'signal'>, error: unknown): Error {
  if (call.signal?.aborted) return abortError(call.signal, call.what);
  if (error instanceof UpgradeServiceError) return error;
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? String(error);
  return new UpgradeServiceError(`could not ${call.what}: the connection to the upgrade platform failed (${code && !message.includes(code) ? `${code}: ` : ''}${message})`, 'transport');
}

/** Reads a JSON answer (at most 1 MiB): an answer that is not JSON is a transport error on 5xx, a protocol error otherwise. */
export async function readAnswer(response: IncomingMessage, call: Pick<PlatformCall, 'what' | 'signal'>): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxAnswerBytes) {
        response.destroy();
        throw new UpgradeServiceError(`could not ${call.what}: the upgrade platform's answer is larger than 1 MiB`, 'protocol');
      }
      chunks.push(chunk);
    }
  } catch (error) {
    throw transportError(call, error);
  }
  const status = response.statusCode ?? 0;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    const type = response.headers['content-type'] ?? 'no content type';
    throw new UpgradeServiceError(`could not ${call.what}: the upgrade platform answered HTTP ${status} (${type}) instead of JSON`, status >= 500 ? 'transport' : 'protocol', {
      httpStatus: status,
    });
  }
}

/**
 * The answer's object once its `failures` are empty. Failures become a `refused` error quoting the
 * platform's messages with every secret masked (it echoes a wrong contract back).
 */
export function checkAnswer(answer: unknown, status: number, what: string, secrets: readonly (string | undefined)[]): Record<string, unknown> {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) {
    throw new UpgradeServiceError(`could not ${what}: the upgrade platform's answer is not a JSON object`, status >= 500 ? 'transport' : 'protocol', { httpStatus: status });
  }
  const record = answer as Record<string, unknown>;
  const failures = Array.isArray(record.failures) ? record.failures.map(toFailure) : [];
  if (failures.length > 0) {
    const masked = redactFailures(failures, secrets);
    throw new UpgradeServiceError(`the upgrade platform refused to ${what}: ${describeFailures(masked)}`, 'refused', { failures: masked, httpStatus: status });
  }
  if (status >= 400) {
    const message = typeof record.message === 'string' ? `: ${redact(record.message, secrets)}` : '';
    throw new UpgradeServiceError(`could not ${what}: the upgrade platform answered HTTP ${status}${message}`, status >= 500 ? 'transport' : 'protocol', {
      httpStatus: status,
    });
  }
  return record;
}

function toFailure(item: unknown): PlatformFailure {
  const record = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
  return {
    ...record,
    reason: typeof record.reason === 'string' ? record.reason : 'UNKNOWN',
    message: typeof record.message === 'string' ? record.message : JSON.stringify(item),
  };
}
