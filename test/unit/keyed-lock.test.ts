/**
 * src/lib/keyed-lock.ts: one task at a time per key in arrival order, keys independent, a failure
 * never blocking the queue, `idle` waiting for what is queued, and nothing kept once a key is idle.
 */
import { describe, expect, it } from 'vitest';
import { KeyedLock, Mutex } from '../../src/lib/keyed-lock.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('KeyedLock', () => {
  it('runs the tasks of a key one at a time, in arrival order, and those of other keys meanwhile', async () => {
    const lock = new KeyedLock<string>();
    const events: string[] = [];
    let running = 0;
    const task = (name: string, key: string) =>
      lock.run(key, async () => {
        running += 1;
        events.push(`${name} start (${running} running)`);
        await tick();
        events.push(`${name} end`);
        running -= 1;
        return name;
      });
    const results = await Promise.all([task('a1', 'a'), task('a2', 'a'), task('b1', 'b'), task('a3', 'a')]);
    expect(results).toEqual(['a1', 'a2', 'b1', 'a3']);
    const ofA = events.filter((event) => event.startsWith('a'));
    expect(ofA.map((event) => event.split(' ').slice(0, 2).join(' '))).toEqual(['a1 start', 'a1 end', 'a2 start', 'a2 end', 'a3 start', 'a3 end']);
    // b1 ran while a1 held key a.
    expect(events.slice(0, 2)).toEqual(['a1 start (1 running)', 'b1 start (2 running)']);
  });

  it('lets the next task run after one fails, and hands the failure to its caller only', async () => {
    const lock = new KeyedLock<number>();
    const failed = lock.run(1, async () => {
      throw new Error('boom');
    });
    const next = lock.run(1, async () => 'ran');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });

  it('idle settles once every task queued so far has, failed ones included', async () => {
    const lock = new KeyedLock<string>();
    const done: string[] = [];
    void lock.run('k', async () => {
      await tick();
      done.push('first');
    });
    lock
      .run('k', async () => {
        await tick();
        done.push('second');
        throw new Error('refused');
      })
      .catch(() => undefined);
    await lock.idle('k');
    expect(done).toEqual(['first', 'second']);
    await expect(lock.idle('other')).resolves.toBeUndefined();
  });

  it('keeps nothing for a key once its last task is over', async () => {
    const lock = new KeyedLock<number>();
    await Promise.all(Array.from({ length: 100 }, (_, i) => lock.run(i % 7, async () => tick())));
    expect((lock as unknown as { tails: Map<number, unknown> }).tails.size).toBe(0);
  });
});

describe('Mutex', () => {
  it('runs every task one at a time in call order; idle waits for the queue', async () => {
    const mutex = new Mutex();
    const order: number[] = [];
    let running = 0;
    const runs = [3, 1, 2].map((delay, i) =>
      mutex.run(async () => {
        running += 1;
        expect(running).toBe(1);
        for (let k = 0; k < delay; k++) await tick();
        order.push(i);
        running -= 1;
      }),
    );
    await mutex.idle();
    expect(order).toEqual([0, 1, 2]);
    await Promise.all(runs);
  });
});
