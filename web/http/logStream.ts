import type { Request, Response } from 'express';
import type { WebContext } from '../context.ts';
import { followLog, type LogNotice } from '../instances/logFollower.ts';

const POLL_MS = 500;
const KEEP_ALIVE_MS = 15_000;
const BACKLOG_BYTES = 1024 * 1024;
const PARTIAL_LINE_MS = 2_000;

/** One notice as Server-Sent Events: each line carries its end offset as `id`, so a reconnect resumes after it. */
function eventOf(notice: LogNotice): string {
  switch (notice.kind) {
    case 'line':
      return `id: ${notice.offset}\ndata: ${notice.text}\n\n`;
    case 'waiting':
      return 'event: waiting\ndata: \n\n';
    case 'skipped':
      return `event: skipped\ndata: ${notice.bytes}\n\n`;
    case 'truncated':
      return 'id: 0\nevent: truncated\ndata: \n\n';
  }
}

/** Writes respecting backpressure: a slow reader slows the follower instead of filling memory. */
function writer(res: Response) {
  return (text: string) =>
    new Promise<void>((resolve) => {
      if (res.write(text) || res.destroyed) return resolve();
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
}

/**
 * Streams the log stored under `key` as Server-Sent Events, following it as it grows, until the
 * reader goes away: the live log viewers of instances and migration runs. `Last-Event-ID` resumes
 * after the last line the reader got.
 */
export async function streamLog(ctx: WebContext, req: Request, res: Response, key: string): Promise<void> {
  const lastId = req.get('last-event-id') ?? '';
  res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  const write = writer(res);
  const stop = new AbortController();
  res.on('close', () => stop.abort());
  const keepAlive = setInterval(() => void write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  try {
    await write('retry: 2000\n\n');
    await followLog({
      blobs: ctx.blobs,
      key,
      from: /^\d{1,15}$/.test(lastId) ? Number(lastId) : undefined,
      backlogBytes: BACKLOG_BYTES,
      pollMs: POLL_MS,
      partialLineMs: PARTIAL_LINE_MS,
      signal: stop.signal,
      send: (notice) => write(eventOf(notice)),
    });
  } catch (error) {
    ctx.logger.error({ err: error, key }, 'log stream failed');
  } finally {
    clearInterval(keepAlive);
    res.end();
  }
}
