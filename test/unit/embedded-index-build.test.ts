/**
 * The embedded engine builds an index over existing documents in one sort (ensureIndexes after a
 * bulk load) and maintains it entry by entry otherwise; both must order entries identically.
 */
import { describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type EventDoc, type Filter, type Sort } from '../../src/storage/port.js';
import { makeEventDoc } from '../helpers/factories.js';

const DAY = 86_400_000;
const BASE = Date.parse('2026-01-01T00:00:00Z');

function events(): EventDoc[] {
  const docs: EventDoc[] = [];
  for (let i = 0; i < 1200; i++) {
    const start = BASE + ((i * 37) % 400) * DAY + (i % 3) * 3_600_000;
    docs.push(
      makeEventDoc({
        _id: 5000 + ((i * 7919) % 1200),
        slug: `built-${i}`,
        status: i % 11 === 0 ? 'draft' : 'publish',
        startUtc: new Date(start),
        endUtc: new Date(start + (1 + (i % 5)) * 3_600_000),
        venueId: i % 9 === 0 ? null : 100 + (i % 17),
        categoryIds: i % 4 === 0 ? [] : [1 + (i % 6), 1 + ((i * 5) % 6)],
        tagIds: i % 7 === 0 ? [30] : [],
        // A few values of other types, so the build sort meets every type bracket.
        postParent: i % 50 === 0 ? (i % 100 === 0 ? 7 : null) : null,
      }),
    );
  }
  return docs;
}

describe('embedded engine: indexes built over existing documents', () => {
  it('answers exactly like indexes maintained document by document', async () => {
    const before = createEmbeddedStorage({ indexes, reason: 'test' });
    const after = createEmbeddedStorage({ indexes, reason: 'test' });
    await after.ensureIndexes();
    for (const doc of events()) {
      await before.events.insertOne(doc);
      await after.events.insertOne(doc);
    }
    await before.ensureIndexes();
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
        { categoryIds: { $in: [2, 5] } },
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
      ],
      [
        { endUtc: { $lte: new Date(BASE + 100 * DAY) } },
        [
          ['endUtc', -1],
          ['_id', -1],
        ],
      ],
      [
        { venueId: { $in: [101, 105] }, startUtc: { $gte: new Date(BASE + 50 * DAY) } },
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
      ],
    ];
    for (const [filter, sort] of cases) {
      for (const skip of [0, 37, 600]) {
        const a = await before.events.findPage({ filter, sort, skip, limit: 25 });
        const b = await after.events.findPage({ filter, sort, skip, limit: 25 });
        expect(a.total).toBe(b.total);
        expect(a.items.map((d) => d._id)).toEqual(b.items.map((d) => d._id));
      }
    }
    expect(await before.events.countValues('categoryIds', { status: 'publish' })).toEqual(await after.events.countValues('categoryIds', { status: 'publish' }));
  });
});
