/**
 * The MongoDB engine's shared change version (src/storage/mongodb/change-version.ts) over a
 * counters collection that fails the way the driver fails: an increment lost to a network error is
 * sent again by the next poll, and the version never goes back.
 */
import { MongoNetworkError } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { createSharedChangeVersion, type SharedChangeVersion } from '../../src/storage/mongodb/change-version.js';

/** A counters collection holding one counter, failing the next `failures` operations. */
function counters() {
  const state = { value: 0, failures: 0, increments: [] as number[] };
  const failOrRun = <T>(run: () => T): Promise<T> => {
    if (state.failures > 0) {
      state.failures--;
      return Promise.reject(new MongoNetworkError('connection reset'));
    }
    return Promise.resolve(run());
  };
  const collection = {
    findOneAndUpdate: (_filter: unknown, update: { $inc: { value: number } }) =>
      failOrRun(() => {
        state.increments.push(update.$inc.value);
        state.value += update.$inc.value;
        return { _id: 'changes', value: state.value };
      }),
    findOne: () => failOrRun(() => ({ _id: 'changes', value: state.value })),
  };
  return { state, collection: collection as never };
}

describe('MongoDB shared change version', () => {
  let version: SharedChangeVersion | undefined;
  afterEach(() => version?.stop());

  it('counts its own writes at once and the others’ at the next read', async () => {
    const { state, collection } = counters();
    version = createSharedChangeVersion(collection, { operationMS: 1000 });
    await version.written();
    expect(version.version()).toBe(2);
    state.value += 5; // another process's writes
    const before = version.version();
    await version.refresh();
    expect(version.version()).toBe(before + 5);
  });

  it('sends an increment lost to a network error again, and a failed read changes nothing', async () => {
    const { state, collection } = counters();
    version = createSharedChangeVersion(collection, { operationMS: 1000 });
    state.failures = 1;
    await version.written();
    expect(version.version()).toBe(1);
    expect(state.value).toBe(0);
    state.failures = 2;
    await version.refresh();
    expect(version.version()).toBe(1);
    await version.refresh();
    expect(state.increments).toEqual([1]);
    expect(state.value).toBe(1);
    expect(version.version()).toBe(2);
  });
});
