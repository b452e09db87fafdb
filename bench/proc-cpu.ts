// CPU time a server process spent during one load run, per request. On a VM whose neighbours steal
// cycles, req/s and latency move with them; the CPU the server itself burned per request does not
// (much), so it is the steadier figure to compare.
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, realpathSync } from 'node:fs';

/** utime and stime of a whole process (every thread), in clock ticks. */
export interface CpuTicks {
  user: number;
  sys: number;
}

/** CPU per request of one run, in microseconds. */
export interface CpuPerRequest {
  userUs: number;
  sysUs: number;
}

function clockTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

const ticksPerSecond = clockTicksPerSecond();

/** Reads fields 14 and 15 of /proc/PID/stat; null where there is no procfs or the process is gone. */
export function readCpuTicks(pid: number | undefined): CpuTicks | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command name, in parentheses) may hold spaces: count from the last ')', which ends field 2.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = Number(fields[14 - 3]);
    const sys = Number(fields[15 - 3]);
    return Number.isFinite(user) && Number.isFinite(sys) ? { user, sys } : null;
  } catch {
    return null;
  }
}

/**
 * The pid must be the node server itself: a wrapper that forked it (a shell, a taskset that did not
 * exec) would burn almost no CPU and make every figure look excellent.
 */
export function assertServerProcess(pid: number): void {
  let exe: string;
  try {
    exe = readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return; // No procfs: readCpuTicks gives no figures either.
  }
  if (exe !== realpathSync(process.execPath)) throw new Error(`pid ${pid} runs ${exe}, not node: CPU per request would be the wrapper's`);
}

export function cpuPerRequest(before: CpuTicks | null, after: CpuTicks | null, requests: number): CpuPerRequest | null {
  if (!before || !after || requests <= 0) return null;
  const usPerTick = 1e6 / ticksPerSecond;
  return {
    userUs: ((after.user - before.user) * usPerTick) / requests,
    sysUs: ((after.sys - before.sys) * usPerTick) / requests,
  };
}
