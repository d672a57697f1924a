/**
 * The embedded engine's in-memory sort on a Date field (then `_id`) reads the field's Date column
 * instead of each document: the same order as the general sort rules, ties included, in both
 * directions, for a partial page (a heap of skip+limit) and a whole sort, and the general rules
 * still apply when a match holds something other than one Date there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexes } from '../../indexes/index.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type EventDoc, type Sort, type Storage } from '../../src/storage/port.js';
import { makeEventDoc } from '../helpers/factories.js';
import { random } from '../helpers/random.js';

const COUNT = 3000;
const base = Date.parse('2030-01-01T00:00:00Z');

describe('embedded engine: in-memory sort by a Date column', () => {
  let storage: Storage;
  /** Insertion (natural) order of the ids. */
  const natural: number[] = [];
  const byIdDoc = new Map<number, EventDoc>();

  beforeAll(async () => {
    storage = createEmbeddedStorage({ indexes, reason: 'test' });
    await storage.ensureIndexes();
    const next = random(11);
    const ids = Array.from({ length: COUNT }, (_, i) => i + 1).sort(() => next() - 0.5);
    for (const id of ids) {
      // Few distinct instants: many ties for the tie-breaks to order.
      const end = new Date(base + Math.floor(next() * 40) * 3_600_000);
      const doc = makeEventDoc({ _id: id, slug: `e-${id}`, dateUtc: end, featured: next() < 0.5 });
      await storage.events.insertOne(doc);
      natural.push(id);
      byIdDoc.set(id, doc);
    }
  });
  afterAll(async () => {
    await storage.close();
  });

  /** The expected order: the sort keys, then natural order. */
  function expected(ids: number[], sort: Sort): number[] {
    const position = new Map(natural.map((id, i) => [id, i]));
    const key = (id: number, field: string): number => (field === '_id' ? id : (byIdDoc.get(id)![field as keyof EventDoc] as Date).getTime());
    return [...ids].sort((a, b) => {
      for (const [field, direction] of sort) {
        const c = key(a, field) - key(b, field);
        if (c !== 0) return c * direction;
      }
      return position.get(a)! - position.get(b)!;
    });
  }

  const sorts: Array<[string, Sort]> = [
    [
      'dateUtc ascending, _id ascending',
      [
        ['dateUtc', 1],
        ['_id', 1],
      ],
    ],
    [
      'dateUtc descending, _id descending',
      [
        ['dateUtc', -1],
        ['_id', -1],
      ],
    ],
    [
      'dateUtc ascending, _id descending',
      [
        ['dateUtc', 1],
        ['_id', -1],
      ],
    ],
    ['dateUtc descending alone (ties in natural order)', [['dateUtc', -1]]],
  ];
  const pages: Array<[number, number]> = [
    [0, 10],
    [40, 25],
    [0, 0],
    [1200, 400],
  ];

  it.each(sorts)('%s: every page as the general rules order it', async (_name, sort) => {
    const filter = { featured: true };
    const all = natural.filter((id) => byIdDoc.get(id)!.featured);
    const order = expected(all, sort);
    expect((await storage.events.explain({ filter, sort, limit: 10 })).sort).toBe('memory');
    for (const [skip, limit] of pages) {
      const page = await storage.events.find({ filter, sort, skip, limit });
      expect(page.map((d) => d._id)).toEqual(order.slice(skip, limit === 0 ? undefined : skip + limit));
    }
  });

  it('falls back to the general rules when a match has no Date there', async () => {
    const id = natural.find((n) => byIdDoc.get(n)!.featured)!;
    await storage.events.updateById(id, { $unset: ['dateUtc'] });
    const sort: Sort = [
      ['dateUtc', 1],
      ['_id', 1],
    ];
    // Missing sorts before every Date.
    const page = await storage.events.find({ filter: { featured: true }, sort, limit: 3 });
    expect(page[0]!._id).toBe(id);
    const others = natural.filter((n) => n !== id && byIdDoc.get(n)!.featured);
    expect(page.slice(1).map((d) => d._id)).toEqual(expected(others, sort).slice(0, 2));
  });
});
