/**
 * Upkeep beside other work (src/lib/chore.ts): at most once per interval of the caller's clock,
 * never two runs at once, failures reported not thrown, and `again` making the next poke run.
 */
import { describe, expect, it } from 'vitest';
import { createChore } from '../../src/lib/chore.js';

const at = (ms: number) => new Date(ms);

describe('chore', () => {
  it('runs at most once per interval and never twice at once', async () => {
    const runs: number[] = [];
    let release: () => void = () => undefined;
    const chore = createChore(
      1000,
      (when) => {
        runs.push(when.getTime());
        return new Promise<number>((resolve) => (release = () => resolve(1)));
      },
      () => undefined,
    );
    chore.poke(at(0));
    chore.poke(at(5000)); // the first run has not ended
    expect(runs).toEqual([0]);
    const running = chore.running();
    release();
    await running;
    await Promise.resolve();
    expect(chore.running()).toBeNull();
    chore.poke(at(999));
    expect(runs).toEqual([0]);
    chore.poke(at(1000));
    expect(runs).toEqual([0, 1000]);
    release();
  });

  it('reports a failed run and runs again after `again`', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const chore = createChore(
      60_000,
      async () => {
        calls++;
        if (calls === 1) throw new Error('disk full');
        chore.again();
        return 500;
      },
      (error) => errors.push(error),
    );
    chore.poke(at(0));
    await chore.running()?.catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(1);
    chore.poke(at(1));
    expect(calls).toBe(1);
    chore.poke(at(60_000));
    await chore.running();
    await new Promise((resolve) => setImmediate(resolve));
    chore.poke(at(60_001));
    expect(calls).toBe(3);
  });
});
