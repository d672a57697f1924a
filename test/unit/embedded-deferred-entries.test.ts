/**
 * The embedded engine adds documents to its sorted indexes and its text index only when something
 * reads those indexes or removes from them (a bulk load that only looks slugs up never pays for
 * them). Writes made before any read — inserts, then updates, deletes and `$pull`s of documents
 * not indexed yet — must leave exactly the indexes a store that read after every write has.
 */
import { describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type EventDoc, type Filter, type Sort, type Storage } from '../../src/storage/port.js';
import { makeEventDoc } from '../helpers/factories.js';

const DAY = 86_400_000;
const BASE = Date.parse('2026-03-01T00:00:00Z');
const WORDS = ['jazz', 'harbour', 'lantern', 'market', 'quartet', 'festival', 'garden', 'cinema'];

function event(i: number): EventDoc {
  const start = BASE + ((i * 37) % 200) * DAY;
  return makeEventDoc({
    _id: 1000 + i,
    slug: `deferred-${i}`,
    status: i % 5 === 0 ? 'draft' : 'publish',
    title: `${WORDS[i % WORDS.length]} night ${i}`,
    description: `<p>${WORDS[(i * 3) % WORDS.length]} by the river</p>`,
    startUtc: new Date(start),
    endUtc: new Date(start + 3_600_000),
    venueId: 100 + (i % 7),
    organizerIds: [200 + (i % 4), 200 + ((i + 1) % 4)],
    categoryIds: [1 + (i % 3)],
  });
}

/** The same writes on both stores; `settle` runs after each one (a read on the reference store). */
async function writeAll(storage: Storage, settle: () => Promise<unknown>): Promise<void> {
  await storage.events.insertMany(Array.from({ length: 120 }, (_, i) => event(i)));
  await settle();
  for (let i = 0; i < 120; i += 9) {
    await storage.events.updateById(1000 + i, { $set: { startUtc: new Date(BASE - (i + 1) * DAY), title: `moved lantern ${i}`, status: 'publish' } });
    await settle();
  }
  for (let i = 4; i < 120; i += 13) {
    await storage.events.deleteById(1000 + i);
    await settle();
  }
  await storage.events.updateMany({ organizerIds: 201 }, { $pull: { organizerIds: 201 } });
  await settle();
  await storage.events.insertMany(Array.from({ length: 30 }, (_, i) => event(200 + i)));
  await settle();
}

describe('embedded engine: index entries deferred until a read', () => {
  it('answers after unread writes exactly as after writes read one by one', async () => {
    const deferred = createEmbeddedStorage({ indexes, reason: 'test' });
    const reference = createEmbeddedStorage({ indexes, reason: 'test' });
    await deferred.ensureIndexes();
    await reference.ensureIndexes();
    await writeAll(deferred, async () => undefined);
    await writeAll(reference, () => reference.events.count({ status: 'publish' }));

    const cases: Array<[Filter, Sort]> = [
      [
        {},
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
      ],
      [
        { status: 'publish' },
        [
          ['startUtc', -1],
          ['_id', -1],
        ],
      ],
      [
        { organizerIds: 201 },
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
      ],
      [
        { organizerIds: { $in: [200, 203] } },
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
      ],
      [
        { venueId: 103, startUtc: { $lt: new Date(BASE + 60 * DAY) } },
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
      ],
      [{ $text: { $search: 'lantern' } }, [['_id', 1]]],
      [
        { $text: { $search: 'harbour jazz' }, status: 'publish' },
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
      ],
    ];
    for (const [filter, sort] of cases) {
      const a = await deferred.events.findPage({ filter, sort, limit: 200 });
      const b = await reference.events.findPage({ filter, sort, limit: 200 });
      expect(
        a.items.map((d) => d._id),
        JSON.stringify(filter),
      ).toEqual(b.items.map((d) => d._id));
      expect(a.total, JSON.stringify(filter)).toBe(b.total);
      // Every document once: an entry added twice would list it twice.
      expect(new Set(a.items.map((d) => d._id)).size).toBe(a.items.length);
    }
    // The pulled organizer is gone from its index (only the events inserted after the pull name
    // it), the moved titles are found by their new words.
    expect((await deferred.events.findPage({ filter: { organizerIds: 201 }, limit: 100 })).items.map((d) => d._id).every((id) => id >= 1200)).toBe(true);
    expect((await deferred.events.findPage({ filter: { organizerIds: 201 }, limit: 100 })).total).toBe(16);
    expect((await deferred.events.findPage({ filter: { $text: { $search: 'moved' } }, limit: 200 })).total).toBe(13);
    expect(await deferred.events.countValues('venueId', { status: 'publish' })).toEqual(await reference.events.countValues('venueId', { status: 'publish' }));
  });

  it('plans with the indexes when the first read comes after a bulk insert', async () => {
    const storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.ensureIndexes();
    await storage.events.insertMany(Array.from({ length: 50 }, (_, i) => event(i)));
    const plan = await storage.events.explain({
      filter: { status: 'publish' },
      sort: [
        ['startUtc', 1],
        ['_id', 1],
      ],
      limit: 10,
    });
    expect(plan.indexes).toContain('events_status_start');
    expect(plan.collectionScan).toBe(false);
    const page = await storage.events.findPage({
      filter: { status: 'publish' },
      sort: [
        ['startUtc', 1],
        ['_id', 1],
      ],
      limit: 10,
    });
    expect(page.total).toBe(40);
    expect(page.items.map((d) => d.startUtc.getTime())).toEqual([...page.items.map((d) => d.startUtc.getTime())].sort((x, y) => x - y));
  });

  it('still refuses a duplicate slug at once, before any read', async () => {
    const storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.ensureIndexes();
    await storage.events.insertMany([event(1), event(2)]);
    const failures = await storage.events.insertMany([{ ...event(3), slug: 'deferred-1' }, event(4)]);
    expect(failures.map((f) => f.index)).toEqual([0]);
    expect((await storage.events.findPage({ filter: {}, limit: 10 })).total).toBe(3);
  });
});
