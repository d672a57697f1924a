/**
 * What a bench figure needs beside it on a shared virtual machine (README "Loading data → Speed"):
 *
 * - steal: CPU time the hypervisor gave to other guests while this machine's CPUs had work (the
 *   eighth figure of the `cpu` line of /proc/stat). An unchanged seed load took 6 s, and 30 s with
 *   41 CPU-seconds stolen;
 * - the CPU time of the process's main thread (the load's thread): what the code cost, apart from
 *   the collector's and the file system's helper threads (process.cpuUsage counts those too).
 *
 * Both read Linux's /proc (in the kernel's fixed 1/100 s ticks) and are null elsewhere.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** USER_HZ: /proc counts in these on every Linux architecture. */
const TICKS_PER_SECOND = 100;

/** Seconds of steal summed over all CPUs since boot. */
export function stealSeconds(): number | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    const steal = Number(fields[8]);
    return fields[0] === 'cpu' && Number.isFinite(steal) ? steal / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

/** User and system CPU seconds of this process's main thread so far. */
export function mainThreadCpuSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from the third: utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

export interface HostReading {
  steal: number | null;
  mainThread: number | null;
}

export function readHost(): HostReading {
  return { steal: stealSeconds(), mainThread: mainThreadCpuSeconds() };
}

/** `main thread 5.12 CPU-s; host steal 1.23 CPU-s (of 2 CPUs)` since `since`, what of it is known ('' on other systems). */
export function hostSince(since: HostReading): string {
  const now = readHost();
  const parts: string[] = [];
  if (since.mainThread !== null && now.mainThread !== null) parts.push(`main thread ${(now.mainThread - since.mainThread).toFixed(2)} CPU-s`);
  if (since.steal !== null && now.steal !== null) parts.push(`host steal ${(now.steal - since.steal).toFixed(2)} CPU-s (of ${availableParallelism()} CPUs)`);
  return parts.join('; ');
}
