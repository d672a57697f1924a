/**
 * The embedded engine refuses, as MongoDB does ("cannot index parallel arrays"), a document with
 * arrays in two fields of one compound index, on every write path and when an index is built, and
 * stores everything else. (The check is compiled per collection; the refusal names the index.)
 */
import { describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { UnsupportedQueryError } from '../../src/errors.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type EventDoc } from '../../src/storage/port.js';
import { makeEventDoc } from '../helpers/factories.js';

const at = new Date('2030-01-01T10:00:00Z');
/** Arrays in organizerIds and startUtc: both fields of events_organizers_start. */
const parallel = (id: number): EventDoc => makeEventDoc({ _id: id, slug: `parallel-${id}`, organizerIds: [1, 2], startUtc: [at, at] as unknown as Date });

describe('embedded engine: parallel arrays in a compound index', () => {
  it('refuses them on insertOne, insertMany and updates, naming the index and fields, and stores nothing', async () => {
    const storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.ensureIndexes();
    await expect(storage.events.insertOne(parallel(1))).rejects.toThrow(/parallel arrays \[organizerIds\] \[startUtc\] in index events_organizers_start/);
    await expect(storage.events.insertMany([makeEventDoc({ _id: 2, slug: 'fine' }), parallel(3)])).rejects.toBeInstanceOf(UnsupportedQueryError);
    expect(await storage.events.count({})).toBe(0);

    await storage.events.insertOne(makeEventDoc({ _id: 4, slug: 'one-array', organizerIds: [1, 2], categoryIds: [3, 4], tagIds: [5] }));
    await expect(storage.events.updateById(4, { $set: { startUtc: [at] as unknown as Date } })).rejects.toThrow(/parallel arrays/);
    expect((await storage.events.findById(4))?.startUtc).toEqual(makeEventDoc({ _id: 4, slug: 'x' }).startUtc);
    await storage.close();
  });

  it('refuses to build an index over stored documents that break it', async () => {
    // Without its indexes, the collection takes the document; building them then refuses it.
    const storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.events.insertOne(parallel(5));
    await expect(storage.ensureIndexes()).rejects.toThrow(/parallel arrays/);
    await storage.close();
  });
});
