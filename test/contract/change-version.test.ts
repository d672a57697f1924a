/**
 * Storage contract: `changeVersion` (port.ts) grows with every write, failed ones included, and
 * not with reads; on an engine several processes share, a write through one storage shows in the
 * version of another on the same data within a second.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc, makeVenueDoc } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();

describe.each(engines)('$name engine: changeVersion', (engine) => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
  });
  afterEach(async () => {
    await storage.close();
  });

  /** Runs `step` and tells whether the version moved. */
  async function moves(step: () => Promise<unknown>): Promise<boolean> {
    const before = storage.changeVersion();
    await step().catch(() => undefined);
    return storage.changeVersion() > before;
  }

  it('grows with every kind of write, a refused one included, and not with reads', async () => {
    const doc = makeEventDoc({ _id: 1, slug: 'one' });
    expect(await moves(() => storage.events.insertOne(doc))).toBe(true);
    expect(await moves(() => storage.events.insertOne(doc))).toBe(true);
    expect(await moves(() => storage.events.insertMany([makeEventDoc({ _id: 2, slug: 'two' })]))).toBe(true);
    expect(await moves(() => storage.events.updateById(1, { $set: { title: 'changed' } }))).toBe(true);
    expect(await moves(() => storage.events.updateMany({ _id: 2 }, { $set: { title: 'changed' } }))).toBe(true);
    expect(await moves(() => storage.events.deleteById(2))).toBe(true);
    expect(await moves(() => storage.venues.insertOne(makeVenueDoc({ _id: 3 })))).toBe(true);
    for (const read of [
      () => storage.events.findById(1),
      () => storage.events.find({ filter: {} }),
      () => storage.events.findPage({ filter: {}, limit: 1 }),
      () => storage.events.count({}),
      () => storage.events.distinct('title', {}),
      () => storage.nextId('posts'),
    ]) {
      expect(await moves(read)).toBe(false);
    }
  });

  it('shows a write through another storage on the same data within a second', async () => {
    const [one, two] = await engine.openShared!();
    try {
      for (let round = 0; round < 3; round++) {
        const before = two.changeVersion();
        await one.events.insertOne(makeEventDoc({ _id: 100 + round, slug: `shared-${round}` }));
        await vi.waitFor(() => expect(two.changeVersion()).toBeGreaterThan(before), { timeout: 1000, interval: 10 });
      }
    } finally {
      await two.close();
      await one.close();
    }
  });
});
