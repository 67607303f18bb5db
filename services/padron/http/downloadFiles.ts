import { createHash } from 'node:crypto';
import { access, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pool } from '#shared/db.ts';
import type { Logger } from '#shared/log.ts';
import { sha256OfFile } from '../import/fileHash.ts';
import type { SlotView } from '../lookup/slotView.ts';
import { buildDownloadFile, TEMP_SUFFIX } from './buildDownloadFile.ts';

/** A built download: where it is and its strong entity tag. */
export interface DownloadFile {
  path: string;
  etag: string;
}

/** Changes when the CSV's layout does, so a file an older version of the service left is never served as current. */
const LAYOUT = 'csv.1';
/** A temporary file untouched this long was left by a build that died (a build writes continuously). */
const ABANDONED_TEMP_MS = 60 * 60 * 1000;
const EXTENSION = '.csv.gz';

/**
 * `<key>-<hash>.csv.gz`: `key` is a state or `all`, the hash names the loads (and their
 * `last_update`) the file holds, so a publish elsewhere leaves a state's file, and its ETag, as is.
 */
export function downloadFileName(key: string, slots: readonly SlotView[]): string {
  const loads = slots.map((slot) => `${slot.state}${slot.regime}${slot.load.loadId}@${slot.lastUpdate}`).join(',');
  return `${key}-${createHash('sha256').update(`${LAYOUT}/${loads}`).digest('base64url').slice(0, 16)}${EXTENSION}`;
}

/**
 * The download files under one folder (`FORJA_DATA_DIR/padron/downloads`), each built once per
 * version of its loads instead of read from the database per request, so a download holds a file,
 * never a database connection. Builds run one at a time (one connection of the service's pool at
 * most); a file is removed once a newer version of it exists and no response is sending it.
 */
export class DownloadFiles {
  private readonly files = new Map<string, Promise<DownloadFile>>();
  private readonly sending = new Map<string, number>();
  private readonly stale = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pool: Pool,
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  /** Creates the folder and removes what dead builds left. */
  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true }).catch((error: Error) => {
      throw new Error(`cannot create the padrón download folder ${this.dir}: ${error.message}`);
    });
    const now = Date.now();
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(TEMP_SUFFIX)) continue;
      const path = join(this.dir, name);
      const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: now }));
      // Another process sharing the folder may be writing its own temporary file right now.
      if (now - mtimeMs > ABANDONED_TEMP_MS) await rm(path, { force: true });
    }
  }

  /** The file of `slots` (today's loads of state `key`, or of all), built first when it does not exist yet. */
  fileFor(key: string, slots: readonly SlotView[]): Promise<DownloadFile> {
    const name = downloadFileName(key, slots);
    let file = this.files.get(name);
    if (!file) {
      const task = this.queue.then(() => this.ensure(key, name, slots));
      this.queue = task.catch(() => undefined);
      file = task;
      this.files.set(name, file);
      // A failed build is forgotten, so the next request tries again.
      file.catch(() => this.files.delete(name));
    }
    return file;
  }

  /** Forgets a file found missing (removed by another process sharing the folder), so the next request builds it again. */
  forget(path: string): void {
    for (const name of this.files.keys()) if (join(this.dir, name) === path) this.files.delete(name);
  }

  /** Keeps `path` from being removed until the returned function is called (the response closed). */
  hold(path: string): () => void {
    this.sending.set(path, (this.sending.get(path) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.sending.get(path) ?? 1) - 1;
      if (left > 0) return void this.sending.set(path, left);
      this.sending.delete(path);
      if (this.stale.delete(path)) void this.remove(path);
    };
  }

  private async ensure(key: string, name: string, slots: readonly SlotView[]): Promise<DownloadFile> {
    const path = join(this.dir, name);
    // Present means whole: files appear by rename (this process before a restart, or another one).
    const present = await access(path).then(
      () => true,
      () => false,
    );
    if (!present) {
      const started = performance.now();
      await buildDownloadFile(this.pool, slots, path);
      this.logger.info({ file: name, ms: Math.round(performance.now() - started) }, 'padrón download file built');
    }
    // Were it still marked, closing an older response for the same name would remove this file.
    this.stale.delete(path);
    const digest = await sha256OfFile(path);
    await this.removeOlder(key, name);
    return { path, etag: `"${key}-${digest.slice(0, 32)}"` };
  }

  /** Removes the other versions of `key`'s file now, or when their last response closes. */
  private async removeOlder(key: string, current: string): Promise<void> {
    for (const name of await readdir(this.dir)) {
      if (name === current || !name.startsWith(`${key}-`) || !name.endsWith(EXTENSION)) continue;
      this.files.delete(name);
      const path = join(this.dir, name);
      if (this.sending.has(path)) this.stale.add(path);
      else await this.remove(path);
    }
  }

  private async remove(path: string): Promise<void> {
    await rm(path, { force: true }).catch((error: unknown) => this.logger.warn({ err: error, path }, 'could not remove an old padrón download file'));
  }
}
