/**
 * Shed requests are logged as one warn line per interval with their count, never one error per
 * request: under a burst, per-request error lines with stacks are thousands of lines of extra work.
 */
import { type FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createShedSummary } from '../../src/plugins/load-shedding.js';

function recordingLog() {
  const lines: Array<{ level: string; obj: unknown; msg: string }> = [];
  const at = (level: string) => (obj: unknown, msg: string) => void lines.push({ level, obj, msg });
  const log = { warn: at('warn'), error: at('error'), info: at('info') } as unknown as FastifyBaseLogger;
  return { log, lines };
}

describe('shed summary', () => {
  it('logs one warn line per interval with the count, and nothing for an interval without any', () => {
    const { log, lines } = recordingLog();
    const timers: Array<() => void> = [];
    const summary = createShedSummary(log, (run) => (timers.push(run), {}));
    for (let i = 0; i < 1950; i++) summary.note();
    expect(timers).toHaveLength(1);
    expect(lines).toEqual([]);
    timers.shift()!();
    expect(lines).toEqual([{ level: 'warn', obj: { shed: 1950 }, msg: 'load shedding: 1950 requests answered 503 server-overloaded (event loop lagging)' }]);

    summary.note();
    expect(timers).toHaveLength(1);
    timers.shift()!();
    expect(lines[1]).toMatchObject({ level: 'warn', obj: { shed: 1 }, msg: expect.stringContaining('1 request answered') });
    // Flushing with nothing counted writes nothing.
    summary.flush();
    expect(lines).toHaveLength(2);
  });

  it('writes what is counted when flushed (at close)', () => {
    const { log, lines } = recordingLog();
    const summary = createShedSummary(log, () => ({}));
    summary.note();
    summary.note();
    summary.flush();
    expect(lines).toEqual([{ level: 'warn', obj: { shed: 2 }, msg: expect.stringContaining('2 requests') }]);
  });
});
