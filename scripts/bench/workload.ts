import { createPool, type Pool } from '#shared/db.ts';
import type { NewEvent } from '#shared/eventStore/eventStore.ts';

/** One measured figure: `count` things in `seconds`; interleaved runs add per-round rates and CPU. */
export interface Figure {
  label: string;
  count: number;
  seconds: number;
  rounds?: number[];
  /** Server CPU per operation in microseconds, over the workload's own backends. */
  cpuPerOp?: number;
  /** WAL bytes written per operation, full-page images included: what each commit must flush. */
  walPerOp?: number;
}

export const rate = (figure: Figure): number => figure.count / figure.seconds;

/**
 * A write workload: `writers` loops, each with one operation in flight, each on its own streams.
 * `op(writer, seq)` gets the writer's own sequence number, from which the stream and its expected
 * version follow, so a workload can be run in slices and continue where it stopped.
 */
export interface Workload {
  label: string;
  writers: number;
  total: number;
  /** Connects (untimed: scram auth is slow on purpose) and returns the server backends' pids. */
  open(): Promise<number[]>;
  op(writer: number, seq: number): Promise<unknown>;
  close(): Promise<void>;
}

/** Events per stream: a realistic aggregate length, and it keeps expected versions small. */
export const STREAM_LENGTH = 100;

/** Progress goes to stderr, so stdout carries only the report. */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** `<category>-<writer>x<n>`: writers never share a stream, so no append ever conflicts. */
export function streamOf(category: string, writer: number, seq: number): string {
  return `${category}-${writer}x${Math.floor(seq / STREAM_LENGTH)}`;
}

/** The version the stream is at before this writer's `seq`-th append. */
export function expectedVersionOf(seq: number): number {
  return seq % STREAM_LENGTH;
}

/** A small event (~250 bytes as JSON), the size of a typical domain event with its metadata. */
export function benchEvent(writer: number, seq: number): NewEvent {
  return {
    type: 'BenchItemRecorded',
    data: { writer, seq, sku: `SKU-${seq % 977}`, quantity: (seq % 7) + 1, note: 'benchmark payload' },
    metadata: { correlationId: `bench-${writer}-${seq}`, causationId: `bench-${writer}-${seq}`, actor: 'bench', at: '2026-11-22T00:00:00.000Z' },
  };
}

/**
 * A pool of `size` connections that keeps them while other workloads' slices run: pg closes
 * connections idle for 10 s, and reconnecting would charge a slice for scram authentication and
 * lose the backends whose CPU time is being counted.
 */
export function benchPool(url: string, size: number): Pool {
  const pool = createPool(url, { max: size, applicationName: 'forja-bench' });
  pool.options.idleTimeoutMillis = 0;
  return pool;
}

/** Opens all `size` connections before timing starts; returns their backends' pids. */
export async function warmPool(pool: Pool, size: number): Promise<number[]> {
  const clients = await Promise.all(Array.from({ length: size }, () => pool.connect()));
  const pids = await Promise.all(clients.map(async (client) => (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid));
  for (const client of clients) client.release();
  return pids;
}
