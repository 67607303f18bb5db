import type { ChildProcess } from 'node:child_process';
import { isServerAlive, pidFilePath, readPidFile, recordedServers, type PidRecord } from './pidFile.ts';

export type ExitListener = (slug: string, exitCode: number | null) => void;

/**
 * Notices ERP servers dying without `stop` or `destroy` asking. Servers this executor spawned
 * report through their 'exit' event, with the exit code; servers adopted from an earlier executor
 * are not our children, so the pid files are polled for them.
 *
 * A death is unexpected when the instance's pid file still names that pid and `stop` has not
 * marked it. The pid file is shared, so this also holds when one executor started the server and
 * another stopped it. Only deaths of servers seen alive are reported: one that died while no
 * executor ran is just absent from `running()`.
 */
export class Supervisor {
  private readonly watched = new Map<string, { record: PidRecord; own: boolean }>();
  private readonly listeners: ExitListener[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly dataRoot: string,
    private readonly intervalMs: number,
  ) {}

  addListener(listener: ExitListener): void {
    this.listeners.push(listener);
    if (!this.timer && !this.closed) {
      this.poll();
      this.timer = setInterval(() => this.poll(), this.intervalMs).unref();
    }
  }

  /** A server this executor spawned. */
  watchChild(slug: string, record: PidRecord, child: ChildProcess): void {
    this.watched.set(slug, { record, own: true });
    if (child.exitCode !== null || child.signalCode !== null) this.died(slug, record.pid, child.exitCode);
    else child.once('exit', (code) => this.died(slug, record.pid, code));
  }

  /** A server found running, possibly started by an earlier executor. */
  watch(slug: string, record: PidRecord): void {
    if (this.watched.get(slug)?.record.pid !== record.pid) this.watched.set(slug, { record, own: false });
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.watched.clear();
  }

  private poll(): void {
    // Our own children are left to their 'exit' event, which knows the exit code.
    for (const [slug, { record, own }] of this.watched) if (!own && !isServerAlive(record)) this.died(slug, record.pid, null);
    for (const { slug, record } of recordedServers(this.dataRoot)) if (!record.stopping && isServerAlive(record)) this.watch(slug, record);
  }

  private died(slug: string, pid: number, exitCode: number | null): void {
    if (this.closed || this.watched.get(slug)?.record.pid !== pid) return;
    this.watched.delete(slug);
    const current = readPidFile(pidFilePath(this.dataRoot, slug));
    if (current?.pid !== pid || current.stopping) return;
    for (const listener of this.listeners) {
      try {
        listener(slug, exitCode);
      } catch (error) {
        console.error('process runtime: unexpected-exit listener failed:', error);
      }
    }
  }
}
