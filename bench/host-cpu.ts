/**
 * What a bench figure needs beside it on a shared virtual machine (README "Loading data → Speed", bench/seed-speed.md):
 *
 * - steal: CPU time the hypervisor gave to other guests while this machine's CPUs had work (the
 *   eighth figure of the `cpu` line of /proc/stat). An unchanged seed load took 6 s, and 30 s with
 *   41 CPU-seconds stolen;
 * - the CPU time of the process's main thread (the load's thread): what the code cost, apart from
 *   the collector's and the file system's helper threads (process.cpuUsage counts those too).
 *
 * Both come from Linux's /proc, which counts in the kernel's fixed 1/100 s ticks; elsewhere they are
 * null and nothing is printed.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** USER_HZ: /proc counts in these on every Linux architecture. */
const TICKS_PER_SECOND = 100;

/** Seconds of steal over all CPUs in the text of /proc/stat; null when it has no such figure. */
export function stealFromProcStat(text: string): number | null {
  const fields = text.split('\n', 1)[0]!.trim().split(/\s+/);
  const steal = Number(fields[8]);
  return fields[0] === 'cpu' && fields.length > 8 && Number.isFinite(steal) ? steal / TICKS_PER_SECOND : null;
}

/** User + system CPU seconds in the text of a /proc/…/stat file; null when it is not one. */
export function cpuFromTaskStat(text: string): number | null {
  // The command name, in parentheses, may itself hold spaces and parentheses: the fields follow its last ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  // From the state (field 3) on: utime and stime are fields 14 and 15.
  const fields = text.slice(close + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return fields.length > 12 && Number.isFinite(ticks) ? ticks / TICKS_PER_SECOND : null;
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Seconds of steal summed over all CPUs since the machine started. */
export function stealSeconds(): number | null {
  const text = readProc('/proc/stat');
  return text === null ? null : stealFromProcStat(text);
}

/** CPU seconds of this process's main thread so far (its thread id is the process id). */
export function mainThreadCpuSeconds(): number | null {
  const text = readProc(`/proc/self/task/${process.pid}/stat`);
  return text === null ? null : cpuFromTaskStat(text);
}

export interface HostReading {
  steal: number | null;
  mainThread: number | null;
}

export function readHost(): HostReading {
  return { steal: stealSeconds(), mainThread: mainThreadCpuSeconds() };
}

/** `main thread 5.12 CPU-s; host steal 1.23 CPU-s (of 2 CPUs)` between two readings, what of it is known ('' elsewhere). */
export function describeHost(since: HostReading, now: HostReading = readHost()): string {
  const parts: string[] = [];
  if (since.mainThread !== null && now.mainThread !== null) parts.push(`main thread ${(now.mainThread - since.mainThread).toFixed(2)} CPU-s`);
  if (since.steal !== null && now.steal !== null) parts.push(`host steal ${(now.steal - since.steal).toFixed(2)} CPU-s (of ${availableParallelism()} CPUs)`);
  return parts.join('; ');
}
