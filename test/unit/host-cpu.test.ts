import { describe, expect, it } from 'vitest';
import { cpuFromTaskStat, describeHost, mainThreadCpuSeconds, readHost, stealFromProcStat, stealSeconds } from '../../bench/host-cpu.js';

// Lines as Linux 6.x writes them (proc(5)); the figures are clock ticks of 1/100 s.
const PROC_STAT = 'cpu  23644 0 3711 59669 518 0 176 6493 0 0\ncpu0 11822 0 1855 29834 259 0 88 3246 0 0\nintr 1 2 3\n';
// A thread whose command name holds a space and a parenthesis, so only the last ')' ends it.
const TASK_STAT =
  '4242 (node (main) x) R 4200 4242 4200 34816 4242 4194304 131326 0 0 0 512 37 0 0 20 0 12 0 9876 1234567 12345 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0';

describe('reading /proc for the bench (bench/host-cpu.ts)', () => {
  it("takes steal from the first line's eighth figure", () => {
    expect(stealFromProcStat(PROC_STAT)).toBeCloseTo(64.93, 5);
  });

  it('refuses a /proc/stat without the figure', () => {
    expect(stealFromProcStat('cpu  1 2 3 4\n')).toBeNull();
    expect(stealFromProcStat('intr 1 2 3 4 5 6 7 8 9\n')).toBeNull();
  });

  it('adds user and system time of a thread, past a command name with spaces and parentheses', () => {
    expect(cpuFromTaskStat(TASK_STAT)).toBeCloseTo(5.49, 5);
    expect(cpuFromTaskStat('4242 node R 1 2')).toBeNull();
    expect(cpuFromTaskStat('4242 (node) R 1 2 3')).toBeNull();
  });

  it("counts this thread's work on Linux, and nothing elsewhere", () => {
    const before = readHost();
    if (process.platform !== 'linux') {
      expect(before).toEqual({ steal: null, mainThread: null });
      expect(describeHost(before)).toBe('');
      return;
    }
    // Busy until the kernel has counted a tick of this thread's CPU (it counts in 1/100 s): a fixed
    // spin could be stolen whole by the host. Three seconds of wall time without one is a failure.
    const until = performance.now() + 3000;
    let after = readHost();
    while (after.mainThread === before.mainThread && performance.now() < until) after = readHost();
    expect(after.mainThread! - before.mainThread!, "this thread's CPU time did not move").toBeGreaterThan(0);
    expect(after.steal! - before.steal!).toBeGreaterThanOrEqual(0);
    expect(mainThreadCpuSeconds()).toBeGreaterThanOrEqual(after.mainThread!);
    expect(stealSeconds()).toBeGreaterThanOrEqual(after.steal!);
    expect(describeHost(before, after)).toMatch(/^main thread \d+\.\d\d CPU-s; host steal \d+\.\d\d CPU-s \(of \d+ CPUs\)$/);
  });
});
