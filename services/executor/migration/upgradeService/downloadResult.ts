import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, stat, unlink } from 'node:fs/promises';
import { type IncomingMessage } from 'node:http';
import { checkAnswer, readAnswer, sendCall, transportError } from './platformHttp.ts';
import { type UpgradeRequestRef, UpgradeServiceError } from './upgradeServiceError.ts';

export interface DownloadOptions {
  signal?: AbortSignal | undefined;
  onProgress?: ((bytes: number, total: number | null) => void) | undefined;
  /** The status's `upgraded_dump_url`, when the caller has it already. */
  url?: string | undefined;
}

export interface DownloadedResult {
  file: string;
  bytes: number;
  sha256: string;
}

/** Where the bytes land until they are all there: per request, so a resume never appends another request's bytes. */
export const partFile = (toFile: string, ref: UpgradeRequestRef) => `${toFile}.${ref.requestId.replace(/[^\w.-]/g, '_')}.part`;

/**
 * Writes the upgraded dump to `<toFile>.<request>.part` (mode 0600), continuing a partial copy with
 * `Range` (a 200 answer starts it again), then syncs it and renames it to `toFile`: `toFile` exists only
 * whole. A dropped connection leaves the partial copy for the next attempt.
 */
export async function downloadResult(ref: UpgradeRequestRef, url: URL, toFile: string, options: DownloadOptions & { idleMs: number }): Promise<DownloadedResult> {
  const { signal, onProgress, idleMs } = options;
  const part = partFile(toFile, ref);
  const what = `download the upgraded dump of request ${ref.requestId}`;
  const have = await sizeOf(part);
  // Hashed before asking: hashing a large partial copy while the answer waits would look idle to the platform.
  const prefix = createHash('sha256');
  if (have > 0) for await (const chunk of createReadStream(part, { end: have - 1 }) as AsyncIterable<Buffer>) prefix.update(chunk);
  const headers: Record<string, string> = have > 0 ? { range: `bytes=${have}-` } : {};
  const response = await sendCall(url, { method: 'GET', what, headers, signal, idleMs });
  const start = await startingOffset(response, have, part, what, signal, ref.key);
  const length = Number(response.headers['content-length'] ?? Number.NaN);
  const total = Number.isFinite(length) ? start + length : null;
  let received = start;
  const hash = start > 0 ? prefix : createHash('sha256');
  // Each chunk reaches the disk before the next is read, so a dropped connection keeps all it brought.
  const handle = await open(part, start > 0 ? 'a' : 'w', 0o600);
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      await handle.write(chunk);
      hash.update(chunk);
      received += chunk.length;
      onProgress?.(received, total);
    }
    await handle.sync();
  } catch (error) {
    throw transportError({ what, signal }, error);
  } finally {
    await handle.close();
  }
  if (total !== null && received !== total) {
    throw new UpgradeServiceError(`could not ${what}: the connection ended after ${received} of ${total} bytes`, 'transport');
  }
  await rename(part, toFile);
  return { file: toFile, bytes: received, sha256: hash.digest('hex') };
}

/** The byte the answer starts at: `have` for a 206 that continues the copy, 0 for a whole 200 answer. */
async function startingOffset(response: IncomingMessage, have: number, part: string, what: string, signal: AbortSignal | undefined, key: string): Promise<number> {
  const status = response.statusCode ?? 0;
  if (status === 200) return 0;
  if (status === 206) {
    const range = /^bytes (\d+)-/.exec(String(response.headers['content-range'] ?? ''));
    if (range && Number(range[1]) === have) return have;
    response.destroy();
    throw new UpgradeServiceError(`could not ${what}: the platform resumed at another byte than ${have}`, 'protocol');
  }
  if (status === 416) {
    response.resume();
    await unlink(part).catch(() => undefined);
    throw new UpgradeServiceError(`could not ${what}: the platform refused to continue the partial copy; the next attempt starts over`, 'transport', { httpStatus: status });
  }
  checkAnswer(await readAnswer(response, { what, signal }).catch(() => ({})), status, what, [key]);
  throw new UpgradeServiceError(`could not ${what}: the upgrade platform answered HTTP ${status}`, status >= 500 ? 'transport' : 'protocol', { httpStatus: status });
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}
