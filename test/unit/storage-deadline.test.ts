/**
 * The storage deadline (src/storage/deadline.ts): every call that can wait is timed, and a read of
 * an engine whose reads settle at once (the embedded engines) arms no timer — a timer could not
 * fire before it settles. The durable engine's writes, which wait for their LMDB commit, keep it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { StorageUnavailableError } from '../../src/errors.js';
import { interceptStorage, withStorageDeadline } from '../../src/storage/deadline.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { openLmdbStorage } from '../../src/storage/lmdb/index.js';
import { type Storage, type TagDoc } from '../../src/storage/port.js';

const tag = (id: number): TagDoc => ({ _id: id, name: `Tag ${id}`, nameKey: `tag ${id}`, slug: `tag-${id}`, description: '', parent: 0 });

/** Timers pending right after `start` began its call, while it is still in flight. */
async function timersDuring(start: () => Promise<unknown>): Promise<number> {
  const call = start();
  const pending = vi.getTimerCount();
  await call;
  return pending;
}

describe('the storage deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('times no read of the embedded engine, and every write', async () => {
    const inner = createEmbeddedStorage({ indexes, reason: 'test' });
    expect(inner.readsSettleAtOnce).toBe(true);
    await inner.ensureIndexes();
    vi.useFakeTimers();
    const storage = withStorageDeadline(inner, 1000);
    expect(await timersDuring(() => storage.tags.insertOne(tag(1)))).toBe(1);
    expect(await timersDuring(() => storage.tags.findById(1))).toBe(0);
    expect(await timersDuring(() => storage.tags.count({}))).toBe(0);
    expect(await timersDuring(() => storage.nextId('posts'))).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('times the reads of a storage that does not say they settle at once, a wrapped embedded one included', async () => {
    const inner = createEmbeddedStorage({ indexes, reason: 'test' });
    await inner.ensureIndexes();
    const wrapped: Storage = interceptStorage(inner, (_name, call) => call());
    expect(wrapped.readsSettleAtOnce).toBeUndefined();
    vi.useFakeTimers();
    const storage = withStorageDeadline(wrapped, 1000);
    expect(await timersDuring(() => storage.tags.findById(1))).toBe(1);
  });

  it('keeps the deadline for a durable write whose commit does not come, its reads untimed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deadline-'));
    // While stalled, a commit is held back until released (a disk that does not answer).
    let stall = false;
    const held: Array<() => void> = [];
    const inner = await openLmdbStorage({
      dir,
      indexes,
      reason: 'test',
      hooks: { commit: (committed) => (stall ? new Promise((resolve) => held.push(() => resolve(committed))) : committed) },
    });
    try {
      expect(inner.readsSettleAtOnce).toBe(true);
      await inner.ensureIndexes();
      // Written before the deadline is applied: a commit on a loaded machine may take longer than it.
      await inner.tags.insertOne(tag(1));
      const storage = withStorageDeadline(inner, 100);
      stall = true;
      const started = performance.now();
      await expect(storage.tags.insertOne(tag(2))).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(performance.now() - started).toBeLessThan(2000);
      // The engine changed in memory before the commit was awaited; reads answer from it.
      expect(await storage.tags.count({})).toBe(2);
    } finally {
      stall = false;
      for (const release of held) release();
      await inner.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
