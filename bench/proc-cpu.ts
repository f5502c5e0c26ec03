import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU time (user and system, all threads) the processes have used so far, µs; NaN where /proc is not readable. */
export function cpuMicros(pids: readonly (number | undefined)[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return NaN;
    }
  }
  return ticks * (1_000_000 / CLOCK_TICKS);
}
