import { performance } from 'node:perf_hooks';
import type { Pool } from '#shared/db.ts';
import { cpuMicros } from './serverCpu.ts';
import { progress, type Figure, type Workload } from './workload.ts';

/**
 * Runs the workloads in `rounds` slices, one workload at a time, rotating which goes first. These
 * machines drift (other jobs share the two cores and the disk), so workloads compared by a ratio
 * must share the same moments: in one back-to-back run the adapter's appends came out at 33 % of
 * the lock anchor while a copy of the same function, run minutes later, reached 108 %. Each round
 * starts with a CHECKPOINT, so no checkpoint triggered by WAL volume lands inside a slice; every
 * workload has its own tables, so each slice pays the full-page writes of its own first touches
 * after it, whatever its place in the round.
 */
export async function interleave(admin: Pool, workloads: Workload[], rounds: number): Promise<Figure[]> {
  const seconds = workloads.map(() => 0);
  const perRound = workloads.map((): number[] => []);
  const cpu = workloads.map((): number | undefined => 0);
  const wal = workloads.map(() => 0);
  const pids: number[][] = [];
  try {
    for (const workload of workloads) pids.push(await workload.open());
    for (let round = 0; round < rounds; round++) {
      const line: string[] = [];
      await admin.query('checkpoint');
      for (let k = 0; k < workloads.length; k++) {
        const index = (round + k) % workloads.length;
        const workload = workloads[index]!;
        const walBefore = await walPosition(admin);
        const cpuBefore = cpuMicros(pids[index]!);
        const { count, elapsed } = await runSlice(workload, round, rounds);
        const cpuAfter = cpuMicros(pids[index]!);
        wal[index]! += (await walPosition(admin)) - walBefore;
        cpu[index] = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpu[index]! + cpuAfter - cpuBefore;
        seconds[index]! += elapsed;
        perRound[index]!.push(count / elapsed);
        line.push(`${workload.label} ${Math.round(count / elapsed)}/s`);
      }
      progress(`round ${round + 1}/${rounds}: ${line.join(', ')}`);
    }
  } finally {
    for (const workload of workloads) await workload.close().catch(() => undefined);
  }
  return workloads.map((workload, index) => ({
    label: workload.label,
    count: workload.total,
    seconds: seconds[index]!,
    rounds: perRound[index]!,
    walPerOp: wal[index]! / workload.total,
    ...(cpu[index] === undefined ? {} : { cpuPerOp: cpu[index]! / workload.total }),
  }));
}

/** Bytes of WAL since the cluster's start; slices run one at a time, so differences are theirs. */
async function walPosition(admin: Pool): Promise<number> {
  const { rows } = await admin.query<{ bytes: string }>("select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as bytes");
  return Number(rows[0]?.bytes ?? 0);
}

/** Slice `round` of every writer's share, all writers concurrently. */
async function runSlice(workload: Workload, round: number, rounds: number): Promise<{ count: number; elapsed: number }> {
  let count = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: workload.writers }, async (_, writer) => {
      const share = Math.floor(workload.total / workload.writers) + (writer < workload.total % workload.writers ? 1 : 0);
      const to = Math.floor((share * (round + 1)) / rounds);
      for (let seq = Math.floor((share * round) / rounds); seq < to; seq++) {
        await workload.op(writer, seq);
        count++;
      }
    }),
  );
  return { count, elapsed: (performance.now() - start) / 1000 };
}
