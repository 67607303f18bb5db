import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { formatBytes } from '#shared/formatBytes.ts';
import { displayUrl } from '#shared/net/displayUrl.ts';
import { pullUrlProblem, type PullAllowList } from '#shared/net/pullUrl.ts';
import type { HostLookup } from '#shared/net/resolveAndCheck.ts';
import { abortError } from '../../abortError.ts';
import { DownloadError } from './downloadError.ts';
import { discardPart, finishPart, keptFile, openPart, rememberSource, restartPart, urlKey, type PartFile } from './partFile.ts';
import { getFollowing, silence, type Answer } from './pinnedGet.ts';

export interface DownloadInputOptions {
  /** http(s); may hold credentials (sent as Basic authorization, shown only through displayUrl). */
  url: string;
  /** Where the complete file goes; `<toFile>.part` (and `.part.json`) hold a download in progress. */
  toFile: string;
  /** FORJA_PULL_ALLOW_HOSTS (pullSettingsFrom). */
  allow: PullAllowList;
  /** FORJA_PULL_MAX_BYTES. */
  maxBytes: number;
  /** Stops the download promptly; the part file stays for a resume. */
  signal: AbortSignal;
  /** Progress lines for the run's log (no credentials in them). */
  log?: (line: string) => unknown;
  /** Resolves a host name to all its addresses; default dns.lookup. Called once per connection. */
  lookup?: HostLookup;
  /** A connection silent for this long is dropped (retryable, the part file kept); default 60 s. */
  idleTimeoutMs?: number;
}

export interface DownloadedInput {
  file: string;
  bytes: number;
  /** Hex, over the whole file, whatever attempts wrote it. */
  sha256: string;
  /** Bytes kept from an earlier attempt (0 when this one started from the first byte). */
  resumedFrom: number;
}

/**
 * Downloads a migration's `pull_url` input into `toFile`, written aside and renamed when complete.
 * A complete file an earlier attempt downloaded from the same URL is kept (that attempt may have
 * died before its completion was recorded). A part file an earlier attempt left is resumed
 * (`Range`, with `If-Range` when the server gave a validator); a server that answers 200 instead
 * starts it over. Rejects with a DownloadError (`retryable` says whether a later attempt may do
 * better) or, when `signal` fires, with its abortError.
 */
export async function downloadInput(options: DownloadInputOptions): Promise<DownloadedInput> {
  const { toFile, signal, maxBytes } = options;
  const shown = displayUrl(options.url);
  const what = `the download of ${shown}`;
  const say = async (line: string) => {
    await options.log?.(line);
  };
  if (signal.aborted) throw abortError(signal, what);
  const problem = pullUrlProblem(options.url, options.allow);
  if (problem) throw new DownloadError('refused', problem);
  const key = urlKey(options.url);
  const kept = await keptFile(toFile, key, signal).catch((error: unknown) => {
    throw signal.aborted ? abortError(signal, what) : error;
  });
  if (kept) {
    await say(`kept the complete download of ${shown} an earlier attempt left: ${formatBytes(kept.bytes)} (${kept.bytes} bytes), sha256 ${kept.sha256}`);
    return { file: toFile, bytes: kept.bytes, sha256: kept.sha256, resumedFrom: kept.bytes };
  }
  const part = await openPart(toFile, key, signal).catch((error: unknown) => {
    throw signal.aborted ? abortError(signal, what) : error;
  });
  await say(part.offset > 0 ? `resuming ${shown} at ${formatBytes(part.offset)}` : `downloading ${shown}`);
  const get = { allow: options.allow, lookup: options.lookup, signal, idleTimeoutMs: options.idleTimeoutMs ?? 60_000, log: say };
  for (let startedOver = false; ; startedOver = true) {
    const range = part.offset > 0 ? { range: `bytes=${part.offset}-`, ...(part.ifRange ? { 'if-range': part.ifRange } : {}) } : {};
    const answer = await getFollowing(options.url, { 'user-agent': 'forja', 'accept-encoding': 'identity', ...range }, get);
    let resumedFrom: number;
    try {
      const verdict = judge(answer, part, startedOver);
      if (verdict.kind === 'again') {
        await say(verdict.why);
        await discardPart(toFile);
        restartPart(part);
        continue;
      }
      if (verdict.kind === 'body' && verdict.total !== undefined && verdict.total > maxBytes) {
        await discardPart(toFile);
        throw tooLarge(shown, verdict.total, maxBytes, 'says');
      }
      if (verdict.kind === 'body' && verdict.whole && part.offset > 0) {
        await say('the server sent the whole file (200) instead of the rest (206): starting again from zero');
        restartPart(part);
      }
      resumedFrom = part.offset;
      if (verdict.kind === 'body') {
        await rememberSource(toFile, key, answer.response.headers);
        await receive(answer, part, verdict.total, options, shown);
      }
    } finally {
      answer.response.destroy();
    }
    await finishPart(toFile);
    const sha256 = part.hash.digest('hex');
    await say(`downloaded ${formatBytes(part.offset)} (${part.offset} bytes), sha256 ${sha256}`);
    return { file: toFile, bytes: part.offset, sha256, resumedFrom };
  }
}

type Verdict =
  /** Read the body onto the part file (`whole`: from the first byte); `total` is the file's size when the server said it. */
  | { kind: 'body'; whole: boolean; total: number | undefined }
  /** The part file already holds the whole file. */
  | { kind: 'complete' }
  /** Start over from zero, for `why`. */
  | { kind: 'again'; why: string };

/** What the answer to a GET (with `Range` when the part file has bytes) means for the part file. */
function judge({ response, url }: Answer, part: PartFile, startedOver: boolean): Verdict {
  const status = response.statusCode ?? 0;
  const contentLength = wholeNumber(response.headers['content-length']);
  if (status === 200) return { kind: 'body', whole: true, total: contentLength };
  const contentRange = response.headers['content-range'] ?? '';
  if (status === 206) {
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange);
    if (range && Number(range[1]) === part.offset) {
      const total = range[3] === '*' ? (contentLength === undefined ? undefined : part.offset + contentLength) : Number(range[3]);
      return { kind: 'body', whole: false, total };
    }
    response.destroy();
    const got = contentRange || 'no Content-Range';
    if (startedOver) throw new DownloadError('protocol', `${displayUrl(url)} answered another range than asked for (${got})`);
    return { kind: 'again', why: `the server sent another range than asked for (${got}): starting again from zero` };
  }
  response.destroy();
  if (status === 416 && part.offset > 0) {
    const total = /^bytes \*\/(\d+)$/.exec(contentRange);
    if (total && Number(total[1]) === part.offset) return { kind: 'complete' };
    if (!startedOver) return { kind: 'again', why: `the server has no bytes past ${formatBytes(part.offset)} (416): starting again from zero` };
  }
  throw new DownloadError('http', `the server answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''} for ${displayUrl(url)}`, status);
}

/** Streams the body onto the part file, hashing and counting; enforces the cap while it streams. */
async function receive(answer: Answer, part: PartFile, total: number | undefined, options: DownloadInputOptions, shown: string): Promise<void> {
  const { signal, maxBytes } = options;
  const from = part.offset;
  const step = total === undefined ? 2 ** 30 : Math.max(Math.ceil(total / 10), 1);
  let nextReport = from + step;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (part.offset + chunk.length > maxBytes) {
        done(tooLarge(shown, undefined, maxBytes, 'sent'));
        return;
      }
      part.offset += chunk.length;
      part.hash.update(chunk);
      if (part.offset >= nextReport) {
        nextReport += step;
        void Promise.resolve(options.log?.(`${formatBytes(part.offset)}${total === undefined ? '' : ` of ${formatBytes(total)}`}`)).catch(() => undefined);
      }
      done(null, chunk);
    },
  });
  const sink = createWriteStream(part.path, { flags: from > 0 ? 'a' : 'w' });
  try {
    await pipeline(answer.response, meter, sink, { signal });
  } catch (error) {
    // The part file must hold what it holds before anyone resumes it.
    if (!sink.closed) await once(sink, 'close').catch(() => undefined);
    if (signal.aborted) throw abortError(signal, `the download of ${shown}`);
    if (error instanceof DownloadError && error.kind === 'too_large') {
      await discardPart(options.toFile);
      throw error;
    }
    const why = answer.timedOut() ? `no data for ${silence(options.idleTimeoutMs ?? 60_000)}` : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    throw new DownloadError('network', `the download of ${shown} broke off after ${formatBytes(part.offset)} (${why}); the partial file is kept for a resume`);
  }
  if (total !== undefined && part.offset !== total) {
    throw new DownloadError('network', `the download of ${shown} ended after ${formatBytes(part.offset)} of ${formatBytes(total)}; the partial file is kept for a resume`);
  }
}

function tooLarge(shown: string, total: number | undefined, maxBytes: number, how: 'says' | 'sent'): DownloadError {
  const size = how === 'says' ? `is ${formatBytes(total ?? 0)} (${total ?? 0} bytes)` : `sent more than ${formatBytes(maxBytes)}`;
  return new DownloadError('too_large', `${shown} ${size}, over the ${formatBytes(maxBytes)} a download may take (FORJA_PULL_MAX_BYTES); the partial file is deleted`);
}

function wholeNumber(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}
