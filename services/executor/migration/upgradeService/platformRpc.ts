import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { abortError } from '../../abortError.ts';
import { UpgradeServiceError, redact } from './upgradeServiceError.ts';

/** One call to the platform. Errors name `what`, never the URL (the logs' URL carries the token). */
export interface PlatformCall {
  what: string;
  signal?: AbortSignal | undefined;
  /** Fails the call when its connection stays silent this long (the vendor's script waits 60 s). */
  idleMs: number;
  /** Masked wherever the platform echoes them back (a wrong contract, the token). */
  secrets: readonly (string | undefined)[];
}

const maxAnswerBytes = 1024 * 1024;

/**
 * A JSON-RPC 2.0 call as the vendor's script makes it: POST `<base><path>` with `{jsonrpc, method,
 * params, id}`; the answer's `result` is the value, unless it holds `error` (the platform's refusal,
 * a sentence), and an answer without `result` is a JSON-RPC error (`error.data.message`).
 */
export async function rpcCall(base: URL, path: string, params: Record<string, unknown>, call: PlatformCall): Promise<Record<string, unknown>> {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'call', params, id: null }));
  const headers = { 'content-type': 'application/json', 'content-length': body.length, accept: 'application/json' };
  const response = await send(new URL(path, base), 'POST', headers, body, call);
  const { status, text, type } = await readAnswer(response, call);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new UpgradeServiceError(`could not ${call.what}: the upgrade platform answered HTTP ${status} (${type}) instead of JSON`, status >= 500 ? 'transport' : 'protocol', { httpStatus: status });
  }
  const record = answer && typeof answer === 'object' && !Array.isArray(answer) ? (answer as Record<string, unknown>) : undefined;
  const result = record?.result;
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    const refusal = (result as Record<string, unknown>).error;
    if (refusal !== undefined && refusal !== null && refusal !== false) {
      throw new UpgradeServiceError(`the upgrade platform refused to ${call.what}: ${redact(String(refusal), call.secrets)}`, 'refused', { httpStatus: status });
    }
    if (status >= 400) throw new UpgradeServiceError(`could not ${call.what}: the upgrade platform answered HTTP ${status}`, status >= 500 ? 'transport' : 'protocol', { httpStatus: status });
    return result as Record<string, unknown>;
  }
  const error = record?.error as { message?: unknown; data?: { message?: unknown } } | undefined;
  const message = typeof error?.data?.message === 'string' ? error.data.message : typeof error?.message === 'string' ? error.message : undefined;
  if (message !== undefined) throw new UpgradeServiceError(`the upgrade platform refused to ${call.what}: ${redact(message, call.secrets)}`, 'refused', { httpStatus: status });
  throw new UpgradeServiceError(`could not ${call.what}: the upgrade platform's answer (HTTP ${status}) is not a JSON-RPC result`, status >= 500 ? 'transport' : 'protocol', { httpStatus: status });
}

/** A GET whose answer is text (the request's log, from byte `from` with `Range`). */
export async function getText(url: URL, headers: Record<string, string>, call: PlatformCall): Promise<{ status: number; text: string }> {
  const response = await send(url, 'GET', headers, undefined, call);
  const { status, text } = await readAnswer(response, call);
  if (status >= 400 && status !== 416) throw new UpgradeServiceError(`could not ${call.what}: the upgrade platform answered HTTP ${status}`, status >= 500 ? 'transport' : 'protocol', { httpStatus: status });
  return { status, text: status === 416 ? '' : text };
}

function send(url: URL, method: 'GET' | 'POST', headers: Record<string, string | number>, body: Buffer | undefined, call: PlatformCall): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, { method, headers, signal: call.signal, timeout: call.idleMs });
    let settled = false;
    request.on('timeout', () => request.destroy(new Error(`no answer for ${Math.round(call.idleMs / 1000)} s`)));
    request.on('error', (error) => {
      if (settled) return;
      settled = true;
      reject(transportError(call, error));
    });
    request.on('response', (response) => {
      settled = true;
      resolve(response);
    });
    request.end(body);
  });
}

/** Reads an answer of at most 1 MiB. */
async function readAnswer(response: IncomingMessage, call: PlatformCall): Promise<{ status: number; text: string; type: string }> {
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
  return { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), type: response.headers['content-type'] ?? 'no content type' };
}

/** What a failed call rejects with: the job's abort, or a retryable transport error. */
function transportError(call: PlatformCall, error: unknown): Error {
  if (call.signal?.aborted) return abortError(call.signal, call.what);
  if (error instanceof UpgradeServiceError) return error;
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? String(error);
  return new UpgradeServiceError(`could not ${call.what}: the connection to the upgrade platform failed (${code && !message.includes(code) ? `${code}: ` : ''}${message})`, 'transport');
}
