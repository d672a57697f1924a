/**
 * Storage contract for categories and tags: what src/query/terms.ts compiles (`compileTermFilter`)
 * and the other queries the term service sends (lookups by slug or name, the `$pull` that removes a
 * deleted term from events, and the per-term published-event counts through `countValues` with
 * `statusFilter(['publish'], now)`), executed against stored documents on every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusFilter } from '../../src/query/status.js';
import { compileTermFilter, type TermListFilter } from '../../src/query/terms.js';
import { type EventDoc, type Scalar, type Storage, type TermDoc } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeCategoryDoc, makeEventDoc, makeTagDoc } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();
/** [name, engine] pairs: a plain name in test titles. */
const engineCases = engines.map((engine) => [engine.name, engine] as const);

const NOW = new Date('2030-01-15T12:00:00.000Z');

const category = (_id: number, name: string, parent: number, slug = name.toLowerCase()): TermDoc =>
  makeCategoryDoc({ _id, name, nameKey: name.toLowerCase(), slug, parent });

/**
 * Music(1) ─┬─ Jazz(2) ── Bebop(4)
 *           └─ Rock(3)
 * Theatre(5) ── Music(6)   (a second "Music", under another parent)
 * Film(7)
 */
const CATEGORIES: TermDoc[] = [
  category(1, 'Music', 0),
  category(2, 'Jazz', 1),
  category(3, 'Rock', 1),
  category(4, 'Bebop', 2),
  category(5, 'Theatre', 0),
  category(6, 'Music', 5, 'music-2'),
  category(7, 'Film', 0),
];

const TAGS: TermDoc[] = [
  makeTagDoc({ _id: 20, name: 'Outdoor', nameKey: 'outdoor', slug: 'outdoor' }),
  makeTagDoc({ _id: 21, name: 'Family', nameKey: 'family', slug: 'family' }),
  makeTagDoc({ _id: 22, name: 'Free entry', nameKey: 'free entry', slug: 'free-entry' }),
];

/**
 * Events in every status. Only `publish`, and `future` whose date has passed, count as published.
 */
function fixtureEvents(): EventDoc[] {
  const event = (_id: number, overrides: Partial<EventDoc>) => makeEventDoc({ _id, slug: `ev-${_id}`, ...overrides });
  return [
    event(100, { status: 'publish', categoryIds: [1, 2], tagIds: [20] }),
    event(101, { status: 'publish', categoryIds: [2], tagIds: [20, 21] }),
    // A term listed twice in one event still counts that event once.
    event(102, { status: 'publish', categoryIds: [4, 4], tagIds: [] }),
    event(103, { status: 'draft', categoryIds: [1, 3], tagIds: [22] }),
    event(104, { status: 'pending', categoryIds: [3], tagIds: [22] }),
    event(105, { status: 'private', categoryIds: [3], tagIds: [] }),
    event(106, { status: 'trash', categoryIds: [1, 7], tagIds: [21] }),
    // Scheduled, and its date has passed: published as readers see it.
    event(107, { status: 'future', dateUtc: new Date('2030-01-15T11:59:59.000Z'), categoryIds: [7], tagIds: [21] }),
    // Scheduled for later: not published yet.
    event(108, { status: 'future', dateUtc: new Date('2030-01-15T12:00:01.000Z'), categoryIds: [5], tagIds: [20] }),
    event(109, { status: 'publish', categoryIds: [], tagIds: [] }),
  ];
}

type ValueCount = { value: Scalar; count: number };
const byValue = (rows: ValueCount[]) => [...rows].sort((a, b) => Number(a.value) - Number(b.value));

describe.each(engineCases)('%s engine: term filters', (_name, engine) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await engine.open();
    for (const doc of CATEGORIES) await storage.categories.insertOne(doc);
    for (const doc of TAGS) await storage.tags.insertOne(doc);
    for (const doc of fixtureEvents()) await storage.events.insertOne(doc);
  });
  afterAll(async () => {
    await storage?.close();
  });

  const ids = async (filter: TermListFilter) => (await storage.categories.find({ filter: compileTermFilter(filter), sort: [['_id', 1]] })).map((d) => d._id);

  describe('compileTermFilter', () => {
    it.each<[string, TermListFilter, number[]]>([
      ['no filter: every term', {}, [1, 2, 3, 4, 5, 6, 7]],
      ['include', { include: [7, 2] }, [2, 7]],
      ['include of an id that is not stored', { include: [2, 999] }, [2]],
      ['an empty include', { include: [] }, []],
      ['exclude one', { exclude: [1] }, [2, 3, 4, 5, 6, 7]],
      ['exclude several', { exclude: [1, 2, 3] }, [4, 5, 6, 7]],
      ['exclude all', { exclude: [1, 2, 3, 4, 5, 6, 7] }, []],
      ['an empty exclude', { exclude: [] }, [1, 2, 3, 4, 5, 6, 7]],
      ['parent: direct children only', { parent: 1 }, [2, 3]],
      ['parent of a leaf', { parent: 4 }, []],
      ['parent 0: the roots', { parent: 0 }, [1, 5, 7]],
      ['slug, exactly', { slug: 'music' }, [1]],
      ['slug with a suffix', { slug: 'music-2' }, [6]],
      ['slug is not a prefix match', { slug: 'mus' }, []],
      ['slug is case-sensitive as stored (slugs are lower case)', { slug: 'Music' }, []],
      ['the terms of an event', { ofEvent: [1, 2] }, [1, 2]],
      ['the terms of an event without terms', { ofEvent: [] }, []],
      ['include and exclude', { include: [1, 2, 3], exclude: [2] }, [1, 3]],
      ['include and the terms of an event', { include: [2, 3], ofEvent: [1, 2] }, [2]],
      ['parent and exclude', { parent: 1, exclude: [3] }, [2]],
      ['parent and slug', { parent: 5, slug: 'music-2' }, [6]],
      ['parent and a slug under another parent', { parent: 0, slug: 'music-2' }, []],
      ['everything at once', { include: [2, 3, 4], ofEvent: [2, 3], exclude: [3], parent: 1, slug: 'jazz' }, [2]],
    ])('%s', async (_label, filter, expected) => {
      expect(await ids(filter)).toEqual(expected);
    });

    it('runs on tags the same way', async () => {
      const tagIds = async (filter: TermListFilter) => (await storage.tags.find({ filter: compileTermFilter(filter), sort: [['_id', 1]] })).map((d) => d._id);
      expect(await tagIds({})).toEqual([20, 21, 22]);
      expect(await tagIds({ exclude: [21] })).toEqual([20, 22]);
      expect(await tagIds({ include: [22], slug: 'free-entry' })).toEqual([22]);
      expect(await tagIds({ parent: 0 })).toEqual([20, 21, 22]);
    });
  });

  describe('lookups of the term service', () => {
    it('finds a term by slug and by lower-cased name, under a parent for categories', async () => {
      expect((await storage.categories.findOne({ slug: 'jazz' }))?._id).toBe(2);
      expect((await storage.categories.findOne({ nameKey: 'jazz' }))?._id).toBe(2);
      expect((await storage.categories.findOne({ nameKey: 'music', parent: 0 }))?._id).toBe(1);
      expect((await storage.categories.findOne({ nameKey: 'music', parent: 5 }))?._id).toBe(6);
      expect(await storage.categories.findOne({ nameKey: 'music', parent: 7 })).toBeNull();
      expect((await storage.tags.findOne({ nameKey: 'free entry' }))?._id).toBe(22);
      expect(await storage.tags.findOne({ nameKey: 'Free entry' })).toBeNull();
    });
  });

  describe("countValues: published events per term (a term's count)", () => {
    it('counts publish and past-dated future events, each event once per term', async () => {
      const rows = await storage.events.countValues('categoryIds', statusFilter(['publish'], NOW));
      // 1: 100; 2: 100, 101; 4: 102 (listed twice); 7: 107 (future, date passed).
      // Not counted: 103 draft, 104 pending, 105 private, 106 trash, 108 future ahead.
      expect(byValue(rows)).toEqual([
        { value: 1, count: 1 },
        { value: 2, count: 2 },
        { value: 4, count: 1 },
        { value: 7, count: 1 },
      ]);
    });

    it('counts tags the same way', async () => {
      const rows = await storage.events.countValues('tagIds', statusFilter(['publish'], NOW));
      // 20: 100, 101 (108 is scheduled ahead); 21: 101, 107 (106 is trash); 22: draft and pending only.
      expect(byValue(rows)).toEqual([
        { value: 20, count: 2 },
        { value: 21, count: 2 },
      ]);
    });

    it('moves a scheduled event into the counts once its date has passed', async () => {
      const later = new Date('2030-01-15T12:00:02.000Z');
      const rows = byValue(await storage.events.countValues('categoryIds', statusFilter(['publish'], later)));
      expect(rows).toContainEqual({ value: 5, count: 1 });
    });

    it('counts every status when asked to (the filter, not the field, decides)', async () => {
      const rows = byValue(await storage.events.countValues('categoryIds', {}));
      expect(rows).toEqual([
        { value: 1, count: 3 },
        { value: 2, count: 2 },
        { value: 3, count: 3 },
        { value: 4, count: 1 },
        { value: 5, count: 1 },
        { value: 7, count: 2 },
      ]);
    });
  });
});

describe.each(engineCases)('%s engine: removing a deleted term from events', (_name, engine) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await engine.open();
    for (const doc of fixtureEvents()) await storage.events.insertOne(doc);
  });
  afterAll(async () => {
    await storage?.close();
  });

  it('pulls every occurrence of the id from every event holding it, whatever its status', async () => {
    const modified = await storage.events.updateMany({ categoryIds: 4 }, { $pull: { categoryIds: 4 } });
    expect(modified).toBe(1);
    expect((await storage.events.findById(102))?.categoryIds).toEqual([]);

    expect(await storage.events.updateMany({ categoryIds: 1 }, { $pull: { categoryIds: 1 } })).toBe(3);
    const after = await storage.events.find({ filter: { _id: { $in: [100, 103, 106] } }, sort: [['_id', 1]] });
    expect(after.map((e) => e.categoryIds)).toEqual([[2], [3], [7]]);
    // Other events and the other taxonomy are untouched.
    expect((await storage.events.findById(101))?.categoryIds).toEqual([2]);
    expect((await storage.events.findById(100))?.tagIds).toEqual([20]);
    expect(await storage.events.count({ categoryIds: 1 })).toBe(0);
  });
});
