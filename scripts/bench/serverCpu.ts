import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time the given server backends have used, in microseconds, from /proc (Linux; the bench's
 * cluster runs on this machine). Wall-clock rates on a shared two-core machine swing with other
 * people's builds; CPU time spent per append barely does, so it is what tells two append designs
 * apart. Undefined where /proc is not readable.
 */
export function cpuMicros(pids: readonly number[]): number | undefined {
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return undefined;
    }
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1e6) / clockTicks();
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  ticksPerSecond ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  return ticksPerSecond;
}
