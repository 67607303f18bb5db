import type { Request, Response } from 'express';
import type { Logger } from '#shared/log.ts';
import type { PadronRegistry } from '../lookup/registry.ts';
import { BadLookupRequest, parseFilters } from '../lookup/requestTerms.ts';
import type { DownloadFiles } from './downloadFiles.ts';
import type { DownloadSlots } from './downloadSlots.ts';
import { clientAddress } from './rateLimit.ts';
import { etagMatches, sendDetail } from './respond.ts';

/** What a refused download is told to wait: about what a download of the whole registry takes. */
const RETRY_AFTER_S = 10;

export interface DownloadDeps {
  registry: PadronRegistry;
  files: DownloadFiles;
  slots: DownloadSlots;
  /** Reverse proxies whose X-Forwarded-For names the client (0 = none). */
  trustedHops: number;
  /** A response whose client reads nothing for this long is cut off. */
  sendTimeoutMs: number;
  logger: Logger;
}

/**
 * `GET /padron/download[/{state}]`: today's loads as one gzip CSV. The file is built once per
 * version of its loads (DownloadFiles) and sent by express's `sendFile`, which answers Range
 * requests and conditional GETs against the strong ETag (the file's digest). No rate limit
 * (spec), but a cap on downloads in progress, and a client that stops reading is disconnected:
 * a download costs a file descriptor and a socket, never a database connection.
 */
export function downloadHandler(deps: DownloadDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    let state;
    try {
      state = parseFilters(req.params['state'], undefined, undefined).state;
    } catch (error) {
      if (!(error instanceof BadLookupRequest)) throw error;
      sendDetail(res, 400, error.message);
      return;
    }
    const slot = deps.slots.take(clientAddress(req, deps.trustedHops));
    if (!slot.granted) {
      sendDetail(res, 503, `too many downloads in progress: ${slot.reason}; retry after the number of seconds in Retry-After`, { 'retry-after': String(RETRY_AFTER_S) });
      return;
    }
    res.once('close', slot.release);
    const view = deps.registry.current;
    const key = state ?? 'all';
    let file;
    try {
      file = await deps.files.fileFor(key, view.slots.filter((each) => state === undefined || each.state === state));
    } catch (error) {
      deps.logger.error({ err: error }, 'padrón download file could not be built');
      sendDetail(res, 503, 'the registry database is unavailable; try again shortly', { 'retry-after': String(RETRY_AFTER_S) });
      return;
    }
    if (req.socket.destroyed) return;
    // Decided here rather than by send, which ignores If-None-Match when the request says
    // `Cache-Control: no-cache`, as fetch() does whenever a script sets If-None-Match itself.
    if (etagMatches(req.headers['if-none-match'], file.etag)) {
      res.writeHead(304, { etag: file.etag, 'cache-control': 'no-cache' }).end();
      return;
    }
    res.once('close', deps.files.hold(file.path));
    // Idle means no byte left for the client: a socket whose buffers are full because its reader stopped.
    res.setTimeout(deps.sendTimeoutMs, () => res.destroy());
    const headers = {
      'content-type': 'application/gzip',
      'content-disposition': `attachment; filename="padron-${key}-${view.date}.csv.gz"`,
      etag: file.etag,
      'cache-control': 'no-cache',
    };
    // dotfiles: FORJA_DATA_DIR is `.data` by default, and send refuses paths through a dot folder otherwise.
    const options = { headers, acceptRanges: true, cacheControl: false, lastModified: false, dotfiles: 'allow' } as const;
    res.sendFile(file.path, options, (error?: Error & { code?: string; status?: number }) => {
      if (!error) return;
      if (res.headersSent || error.code === 'ECONNABORTED') return void res.destroy();
      if (error.status === 416 || error.status === 412) {
        // send set the file's headers before refusing; only Content-Range (416) still applies.
        for (const name of ['etag', 'content-disposition', 'accept-ranges']) res.removeHeader(name);
        const detail = error.status === 416 ? 'the range is outside the file; Content-Range gives its size' : 'the file does not meet the If-Match or If-Unmodified-Since condition';
        return void sendDetail(res, error.status, detail);
      }
      // Only another process sharing the folder removes a file this one still serves.
      deps.logger.warn({ err: error }, 'padrón download file vanished before it was sent');
      deps.files.forget(file.path);
      sendDetail(res, 503, 'the download is being rebuilt; try again shortly', { 'retry-after': '1' });
    });
  };
}
