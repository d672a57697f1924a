/**
 * Storage contract: the filter language of port.ts, sorting, paging and updateMany, on every engine.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuplicateKeyError, UnsupportedQueryError } from '../../src/errors.js';
import { type EventDoc, type Filter, type Sort, type Storage, type TagDoc } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc, makeTagDoc, makeVenueDoc } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();
/** [name, engine] pairs: a plain name in test titles. */
const engineCases = engines.map((engine) => [engine.name, engine] as const);

const at = (iso: string): Date => new Date(iso);

/** Five events covering dates, scalar and array references, null and missing fields. */
function fixtureEvents(): EventDoc[] {
  const noWebsite = makeEventDoc({
    _id: 3,
    slug: 'e-3',
    startUtc: at('2025-04-10T18:00:00Z'),
    endUtc: at('2025-04-10T21:00:00Z'),
    venueId: null,
    organizerIds: [],
    categoryIds: [],
  });
  delete (noWebsite as Partial<EventDoc>).website;
  return [
    makeEventDoc({
      _id: 1,
      slug: 'e-1',
      startUtc: at('2025-04-01T18:00:00Z'),
      endUtc: at('2025-04-01T20:00:00Z'),
      venueId: 10,
      organizerIds: [100, 101],
      categoryIds: [5],
      featured: true,
    }),
    makeEventDoc({
      _id: 2,
      slug: 'e-2',
      status: 'draft',
      startUtc: at('2025-04-05T18:00:00Z'),
      endUtc: at('2025-04-05T23:00:00Z'),
      venueId: 11,
      organizerIds: [101],
      categoryIds: [5, 6],
      website: 'https://example.org/e-2',
      image: { url: 'https://img.example/e-2.jpg', extension: 'jpg' },
    }),
    noWebsite,
    makeEventDoc({
      _id: 4,
      slug: 'e-4',
      status: 'trash',
      startUtc: at('2025-05-01T09:00:00Z'),
      endUtc: at('2025-05-01T10:00:00Z'),
      venueId: 10,
      organizerIds: [102],
      categoryIds: [7],
      postParent: 1,
    }),
    makeEventDoc({
      _id: 5,
      slug: 'e-5',
      startUtc: at('2025-03-20T19:30:00Z'),
      endUtc: at('2025-03-20T22:00:00Z'),
      venueId: 12,
      organizerIds: [100],
      categoryIds: [6, 7],
      ticketed: true,
    }),
  ];
}

const byId: Sort = [['_id', 1]];

describe.each(engineCases)('%s engine: queries', (_name, engine) => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
    for (const event of fixtureEvents()) await storage.events.insertOne(event);
  });
  afterEach(async () => {
    await storage.close();
  });

  async function idsOf(filter: Filter, sort: Sort = byId): Promise<number[]> {
    return (await storage.events.find({ filter, sort })).map((event) => event._id);
  }

  it.each<[string, Filter, number[]]>([
    ['$gte', { startUtc: { $gte: at('2025-04-01T18:00:00Z') } }, [1, 2, 3, 4]],
    ['$gt', { startUtc: { $gt: at('2025-04-01T18:00:00Z') } }, [2, 3, 4]],
    ['$lt', { startUtc: { $lt: at('2025-04-05T18:00:00Z') } }, [1, 5]],
    ['$lte', { startUtc: { $lte: at('2025-04-05T18:00:00Z') } }, [1, 2, 5]],
    ['$gte + $lt', { startUtc: { $gte: at('2025-04-01T00:00:00Z'), $lt: at('2025-04-10T18:00:00Z') } }, [1, 2]],
    ['bounds on two fields', { startUtc: { $gte: at('2025-04-01T00:00:00Z') }, endUtc: { $lte: at('2025-04-10T21:00:00Z') } }, [1, 2, 3]],
    ['equality', { startUtc: at('2025-04-05T18:00:00Z') }, [2]],
    ['$eq', { startUtc: { $eq: at('2025-04-05T18:00:00Z') } }, [2]],
    ['$ne', { startUtc: { $ne: at('2025-04-05T18:00:00Z') } }, [1, 3, 4, 5]],
    ['$in', { startUtc: { $in: [at('2025-04-01T18:00:00Z'), at('2025-05-01T09:00:00Z')] } }, [1, 4]],
    // MongoDB compares only within a type bracket: a string never matches a Date bound.
    ['a string bound against Dates', { startUtc: { $gt: '2000-01-01' } }, []],
    ['a number bound against Dates', { startUtc: { $gt: 0 } }, []],
  ])('Date filter: %s', async (_name, filter, expected) => {
    expect(await idsOf(filter)).toEqual(expected);
  });

  it.each<[string, Filter, number[]]>([
    ['scalar $in', { venueId: { $in: [10, 12] } }, [1, 4, 5]],
    ['scalar $nin', { venueId: { $nin: [10] } }, [2, 3, 5]],
    ['$in with null', { venueId: { $in: [null, 11] } }, [2, 3]],
    ['string $in', { status: { $in: ['publish', 'draft'] } }, [1, 2, 3, 5]],
    ['string $nin', { status: { $nin: ['trash'] } }, [1, 2, 3, 5]],
    ['empty $in', { status: { $in: [] } }, []],
    ['empty $nin', { status: { $nin: [] } }, [1, 2, 3, 4, 5]],
    ['array field equality', { organizerIds: 100 }, [1, 5]],
    ['array field $eq', { categoryIds: { $eq: 7 } }, [4, 5]],
    ['array field $in', { organizerIds: { $in: [102, 100] } }, [1, 4, 5]],
    ['array field $nin', { organizerIds: { $nin: [100, 101] } }, [3, 4]],
    ['array field $ne', { categoryIds: { $ne: 5 } }, [3, 4, 5]],
    ['array field $all', { categoryIds: { $all: [6, 7] } }, [5]],
    ['array field $all of one', { categoryIds: { $all: [5] } }, [1, 2]],
    ['empty $all', { categoryIds: { $all: [] } }, []],
    // $all is an $and of equalities in MongoDB, so it also matches a scalar field.
    ['scalar field $all', { venueId: { $all: [10] } }, [1, 4]],
    ['array field range', { organizerIds: { $gt: 101 } }, [4]],
    ['boolean equality', { featured: true }, [1]],
    ['dotted path', { 'image.extension': 'jpg' }, [2]],
  ])('$in/$nin/$all: %s', async (_name, filter, expected) => {
    expect(await idsOf(filter)).toEqual(expected);
  });

  it.each<[string, Filter, number[]]>([
    ['null matches null and missing', { website: null }, [1, 3, 4, 5]],
    ['$eq null', { website: { $eq: null } }, [1, 3, 4, 5]],
    ['$ne null', { website: { $ne: null } }, [2]],
    ['$in [null]', { website: { $in: [null] } }, [1, 3, 4, 5]],
    ['$nin [null]', { website: { $nin: [null] } }, [2]],
    // Within the null type bracket $gte/$lte mean $eq, missing included; $gt/$lt match nothing.
    ['$gte null', { website: { $gte: null } }, [1, 3, 4, 5]],
    ['$lte null', { website: { $lte: null } }, [1, 3, 4, 5]],
    ['$gt null', { website: { $gt: null } }, []],
    ['$lt null', { website: { $lt: null } }, []],
    ['$exists false', { website: { $exists: false } }, [3]],
    ['$exists true counts null as present', { website: { $exists: true } }, [1, 2, 4, 5]],
    ['$exists on a null field', { postParent: { $exists: true } }, [1, 2, 3, 4, 5]],
    ['nested missing field', { 'image.url': { $exists: true } }, [2]],
    ['nested null matches missing parents', { 'image.url': null }, [1, 3, 4, 5]],
  ])('null and missing: %s', async (_name, filter, expected) => {
    expect(await idsOf(filter)).toEqual(expected);
  });

  it.each<[string, Filter, number[]]>([
    ['$or', { $or: [{ venueId: 10 }, { ticketed: true }] }, [1, 4, 5]],
    ['$and', { $and: [{ status: 'publish' }, { categoryIds: 6 }] }, [5]],
    ['$nor', { $nor: [{ status: 'trash' }, { venueId: null }] }, [1, 2, 5]],
    ['nested', { $or: [{ $and: [{ status: 'publish' }, { featured: true }] }, { status: 'draft' }] }, [1, 2]],
    ['$or beside a field', { status: 'publish', $or: [{ venueId: 10 }, { venueId: null }] }, [1, 3]],
    ['$and on one field', { $and: [{ startUtc: { $gte: at('2025-04-01T00:00:00Z') } }, { startUtc: { $lt: at('2025-04-06T00:00:00Z') } }] }, [1, 2]],
    ['$nor with a range', { $nor: [{ startUtc: { $lt: at('2025-04-02T00:00:00Z') } }] }, [2, 3, 4]],
  ])('logical: %s', async (_name, filter, expected) => {
    expect(await idsOf(filter)).toEqual(expected);
  });

  it.each<[string, Filter, number[]]>([
    ['_id equality', { _id: 2 }, [2]],
    ['_id $in', { _id: { $in: [1, 3, 99] } }, [1, 3]],
    ['_id $in with another condition', { _id: { $in: [4] }, status: 'publish' }, []],
    ['_id twice in $and', { $and: [{ _id: { $in: [1, 2] } }, { _id: { $in: [2, 3] } }] }, [2]],
    ['_id $nin', { _id: { $nin: [1, 2] } }, [3, 4, 5]],
    ['_id range', { _id: { $gt: 3 } }, [4, 5]],
    ['_id of another type', { _id: '2' }, []],
    ['unique slug', { slug: 'e-2' }, [2]],
    ['unique slug $in', { slug: { $in: ['e-1', 'e-5', 'none'] } }, [1, 5]],
    ['unique slug and another condition', { slug: 'e-1', status: 'draft' }, []],
    ['unique slug inside $or', { $or: [{ slug: 'e-1' }, { slug: 'e-4' }] }, [1, 4]],
  ])('look-ups: %s', async (_name, filter, expected) => {
    expect(await idsOf(filter)).toEqual(expected);
  });

  it('count and findOne use the same filter semantics', async () => {
    expect(await storage.events.count({})).toBe(5);
    expect(await storage.events.count({ organizerIds: 101 })).toBe(2);
    expect(await storage.events.count({ status: 'future' })).toBe(0);
    expect(await storage.events.findOne({ organizerIds: 102 })).toMatchObject({ _id: 4, slug: 'e-4' });
    expect(await storage.events.findOne({ venueId: 99 })).toBeNull();
  });

  it.each<[string, Sort, number[]]>([
    [
      'by start then id',
      [
        ['startUtc', 1],
        ['_id', 1],
      ],
      [5, 1, 2, 3, 4],
    ],
    [
      'by start descending',
      [
        ['startUtc', -1],
        ['_id', 1],
      ],
      [4, 3, 2, 1, 5],
    ],
    [
      'by status, start descending, id',
      [
        ['status', 1],
        ['startUtc', -1],
        ['_id', 1],
      ],
      [2, 3, 1, 5, 4],
    ],
    // null sorts before numbers; the _id tiebreak orders equal venues.
    [
      'by venue, id descending',
      [
        ['venueId', 1],
        ['_id', -1],
      ],
      [3, 4, 1, 2, 5],
    ],
    // Ascending uses each array's smallest element, and an empty array comes first.
    [
      'by array field ascending',
      [
        ['categoryIds', 1],
        ['_id', 1],
      ],
      [3, 1, 2, 5, 4],
    ],
    // Descending uses the largest element; an empty array comes last.
    [
      'by array field descending',
      [
        ['categoryIds', -1],
        ['_id', 1],
      ],
      [4, 5, 2, 1, 3],
    ],
  ])('sort: %s', async (_name, sort, expected) => {
    expect(await idsOf({}, sort)).toEqual(expected);
  });

  it('sorts mixed types in BSON order: null/missing < numbers < strings < objects < booleans < dates', async () => {
    const values: Array<[number, unknown]> = [
      [1, 'text'],
      [2, true],
      [3, 42],
      [4, null],
      [5, at('2020-01-01T00:00:00Z')],
      [6, { nested: 1 }],
      [7, -1.5],
      [8, undefined],
      [9, 'Text'],
      [10, false],
    ];
    for (const [id, value] of values) {
      const tag = makeTagDoc({ _id: id });
      if (value === undefined) delete (tag as Partial<TagDoc>).description;
      else (tag as unknown as Record<string, unknown>).description = value;
      await storage.tags.insertOne(tag);
    }
    const ascending = await storage.tags.find({
      filter: {},
      sort: [
        ['description', 1],
        ['_id', 1],
      ],
    });
    expect(ascending.map((tag) => tag._id)).toEqual([4, 8, 7, 3, 9, 1, 6, 10, 2, 5]);
    const descending = await storage.tags.find({
      filter: {},
      sort: [
        ['description', -1],
        ['_id', 1],
      ],
    });
    expect(descending.map((tag) => tag._id)).toEqual([5, 2, 10, 6, 1, 9, 3, 7, 4, 8]);
  });

  it('sorts strings by binary order (no collation)', async () => {
    const names = ['banana', 'Zebra', 'Äpfel', 'apple', 'Apple', 'äpfel'];
    for (const [i, name] of names.entries()) {
      await storage.venues.insertOne(makeVenueDoc({ _id: i + 1, slug: `v-${i + 1}`, name }));
    }
    const sorted = await storage.venues.find({
      filter: {},
      sort: [
        ['name', 1],
        ['_id', 1],
      ],
    });
    expect(sorted.map((venue) => venue.name)).toEqual(['Apple', 'Zebra', 'apple', 'banana', 'Äpfel', 'äpfel']);
  });

  it('applies sort, then skip, then limit; findPage counts every match', async () => {
    const sort: Sort = [
      ['startUtc', 1],
      ['_id', 1],
    ];
    const page = await storage.events.findPage({ filter: {}, sort, skip: 1, limit: 2 });
    expect(page.items.map((event) => event._id)).toEqual([1, 2]);
    expect(page.total).toBe(5);

    const published = await storage.events.findPage({ filter: { status: 'publish' }, sort, skip: 2, limit: 2 });
    expect(published.items.map((event) => event._id)).toEqual([3]);
    expect(published.total).toBe(3);

    const beyond = await storage.events.findPage({ filter: {}, sort, skip: 10, limit: 2 });
    expect(beyond).toEqual({ items: [], total: 5 });

    const unlimited = await storage.events.find({ filter: {}, sort, limit: 0 });
    expect(unlimited).toHaveLength(5);

    const firstOnly = await storage.events.find({
      filter: {},
      sort: [
        ['startUtc', -1],
        ['_id', 1],
      ],
      limit: 1,
    });
    expect(firstOnly.map((event) => event._id)).toEqual([4]);
  });

  it('updateMany $set returns the number of documents it changed', async () => {
    // Event 4 is already in the trash, so only event 1 changes.
    expect(await storage.events.updateMany({ venueId: 10 }, { $set: { status: 'trash' } })).toBe(1);
    expect(await idsOf({ status: 'trash' })).toEqual([1, 4]);
    expect(await storage.events.updateMany({ venueId: 12 }, { $set: { venueId: null, categoryIds: [] } })).toBe(1);
    expect(await storage.events.findById(5)).toMatchObject({ venueId: null, categoryIds: [], organizerIds: [100] });
    expect(await storage.events.updateMany({ venueId: 99 }, { $set: { status: 'draft' } })).toBe(0);
  });

  it('updateMany $pull removes a value from an array field', async () => {
    expect(await storage.events.updateMany({ organizerIds: 100 }, { $pull: { organizerIds: 100 } })).toBe(2);
    expect((await storage.events.findById(1))!.organizerIds).toEqual([101]);
    expect((await storage.events.findById(5))!.organizerIds).toEqual([]);
    expect(await storage.events.count({ organizerIds: 100 })).toBe(0);
    // Nothing to pull: nothing modified.
    expect(await storage.events.updateMany({}, { $pull: { organizerIds: 999 } })).toBe(0);

    const modified = at('2025-06-01T00:00:00Z');
    expect(await storage.events.updateMany({ categoryIds: 7 }, { $set: { modifiedUtc: modified }, $pull: { categoryIds: 7 } })).toBe(2);
    expect(await storage.events.findById(4)).toMatchObject({ categoryIds: [], modifiedUtc: modified });
    expect(await storage.events.findById(5)).toMatchObject({ categoryIds: [6], modifiedUtc: modified });
    expect((await storage.events.findById(1))!.modifiedUtc).toEqual(fixtureEvents()[0]!.modifiedUtc);
  });

  it('updateMany refuses to give two documents the same unique key', async () => {
    const write = storage.events.updateMany({ venueId: 10 }, { $set: { slug: 'same-slug' } });
    await expect(write).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await storage.events.count({ slug: 'same-slug' })).toBeLessThanOrEqual(1);
    if (engine.name === 'embedded') {
      // Named exemption: MongoDB applies updateMany document by document, so it may have renamed
      // the first event before failing; the embedded engine checks everything before writing.
      expect(await storage.events.count({ slug: 'same-slug' })).toBe(0);
    }
  });

  it.each<[string, Filter]>([
    ['an unknown field operator', { status: { $foo: 1 } } as unknown as Filter],
    ['an unknown top-level operator', { $foo: [{ status: 'publish' }] }],
    ['an empty $and', { $and: [] }],
    ['an empty $or', { $or: [] }],
    ['$in without an array', { status: { $in: 'publish' } } as unknown as Filter],
    ['$nin without an array', { status: { $nin: 'publish' } } as unknown as Filter],
  ])('refuses %s on every engine', async (_name, filter) => {
    const run = storage.events.find({ filter });
    await expect(run).rejects.toThrow();
    if (engine.name === 'embedded') await expect(run).rejects.toBeInstanceOf(UnsupportedQueryError);
  });

  it.each<[string, Filter, number[]]>([
    ['$regex', { slug: { $regex: '^e-[12]$' } } as unknown as Filter, [1, 2]],
    ['a RegExp value', { slug: /^e-[45]$/ } as unknown as Filter, [4, 5]],
    ['$elemMatch', { organizerIds: { $elemMatch: { $gt: 100, $lt: 102 } } } as unknown as Filter, [1, 2]],
    ['$size', { organizerIds: { $size: 2 } } as unknown as Filter, [1]],
    ['$expr', { $expr: { $gt: ['$endUtc', '$startUtc'] } } as unknown as Filter, [1, 2, 3, 4, 5]],
    ['$not', { venueId: { $not: { $eq: 10 } } } as unknown as Filter, [2, 3, 5]],
  ])('refuses %s outside the port language (embedded only)', async (_name, filter, mongoResult) => {
    const run = idsOf(filter);
    if (engine.name === 'embedded') {
      // Named exemption: MongoDB runs these, but the port's Filter type does not include them and
      // the embedded engine refuses rather than guesses.
      await expect(run).rejects.toBeInstanceOf(UnsupportedQueryError);
    } else {
      expect(await run).toEqual(mongoResult);
    }
  });

  it('refuses a sort key that is not a plain field path (embedded only)', async () => {
    const run = storage.events.find({ filter: {}, sort: [['$natural', 1]] });
    if (engine.name === 'embedded') {
      // Named exemption: MongoDB accepts $natural; the port only sorts on fields.
      await expect(run).rejects.toBeInstanceOf(UnsupportedQueryError);
    } else {
      expect(await run).toHaveLength(5);
    }
  });
});
