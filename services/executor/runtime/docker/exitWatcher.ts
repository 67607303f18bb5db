import type Docker from 'dockerode';
import { LABELS } from './erpContainer.ts';

export type ExitListener = (slug: string, exitCode: number | null) => void;

interface EngineEvent {
  Type?: string;
  Action?: string;
  id?: string;
  timeNano?: number;
  time?: number;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
}

const RECONNECT_MS = { first: 1_000, max: 30_000 };

/**
 * Reports ERP servers that die without `stop` or `destroy` asking, from the engine's event stream
 * (`GET /events`): a `die` event arrives at once with the exit code, and it covers containers an
 * earlier executor started, since the engine, not this process, owns them. When the stream ends
 * (engine restart) it reconnects with `since`, so deaths in between are still seen.
 *
 * The filter is applied here rather than by the engine: podman names the action `died` in its
 * filters and ignores a label filter without a value.
 */
export class ExitWatcher {
  private readonly listeners: ExitListener[] = [];
  /** Containers `stop`/`destroy` are stopping: their `die` is expected. */
  private readonly expected = new Set<string>();
  private stream: NodeJS.ReadableStream | undefined;
  private connecting: Promise<void> | undefined;
  private lastSeen: { seconds: number; nanos: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;

  constructor(private readonly docker: Docker) {}

  /** Starts watching on the first listener; resolves once the engine's stream is open. */
  addListener(listener: ExitListener): Promise<void> {
    this.listeners.push(listener);
    return this.connect();
  }

  /** Resolves once the stream is open, when anyone listens: a container started after this is watched. */
  ready(): Promise<void> {
    return this.listeners.length > 0 ? this.connect() : Promise.resolve();
  }

  /** The container's next death was asked for. */
  expect(containerId: string): void {
    this.expected.add(containerId);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    const stream = this.stream as (NodeJS.ReadableStream & { destroy?: () => void }) | undefined;
    stream?.destroy?.();
    this.stream = undefined;
  }

  private connect(): Promise<void> {
    if (this.closed || this.stream) return Promise.resolve();
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<void> {
    const since = this.lastSeen ? { since: this.lastSeen.seconds } : {};
    // Without `since` the engine streams from now on: anything older is not replayed.
    const now = Date.now();
    this.lastSeen ??= { seconds: Math.floor(now / 1000), nanos: now * 1e6 };
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.docker.getEvents({ ...since, filters: { type: ['container'] } });
    } catch (error) {
      if (this.failures++ === 0) console.error(`docker runtime: cannot watch the engine's events (${(error as Error).message}); retrying`);
      this.retry();
      return;
    }
    this.failures = 0;
    if (this.closed) return void (stream as unknown as { destroy?: () => void }).destroy?.();
    this.stream = stream;
    let pending = '';
    stream.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.handle(line);
    });
    const ended = () => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      this.retry();
    };
    stream.on('end', ended);
    stream.on('close', ended);
    stream.on('error', ended);
  }

  private retry(): void {
    if (this.closed) return;
    const delay = Math.min(RECONNECT_MS.first * 2 ** Math.max(0, this.failures - 1), RECONNECT_MS.max);
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }

  private handle(line: string): void {
    let event: EngineEvent;
    try {
      event = JSON.parse(line) as EngineEvent;
    } catch {
      return;
    }
    const nanos = event.timeNano ?? (event.time ?? 0) * 1e9;
    // A reconnect with `since` replays the last second: skip what was already handled.
    if (this.lastSeen && nanos <= this.lastSeen.nanos) return;
    this.lastSeen = { seconds: Math.floor(nanos / 1e9), nanos };
    if (event.Type !== 'container' || (event.Action !== 'die' && event.Action !== 'died')) return;
    const attributes = event.Actor?.Attributes ?? {};
    const id = event.Actor?.ID ?? event.id ?? '';
    const slug = attributes[LABELS.instance];
    if (!slug || attributes[LABELS.role] !== 'erp') return;
    if (this.expected.delete(id)) return;
    const code = Number(attributes.exitCode ?? attributes.containerExitCode);
    for (const listener of this.listeners) {
      try {
        listener(slug, Number.isInteger(code) ? code : null);
      } catch (error) {
        console.error('docker runtime: unexpected-exit listener failed:', error);
      }
    }
  }
}
