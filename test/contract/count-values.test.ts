/**
 * Storage contract: `countValues` (port.ts) — per distinct value, the number of matching documents
 * holding it; an array field counts each document once per distinct element (a repeated element
 * counts once), null, missing values and empty arrays are left out, and the filter language is the
 * one of `find` ($text included), on every engine. Order is not part of the contract, so results
 * are compared sorted by value.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnsupportedQueryError } from '../../src/errors.js';
import { searchWords, textSearchOf } from '../../src/lib/text.js';
import { type EventDoc, type Filter, type Scalar, type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();
/** [name, engine] pairs: a plain name in test titles. */
const engineCases = engines.map((engine) => [engine.name, engine] as const);

type ValueCount = { value: Scalar; count: number };

const at = (iso: string): Date => new Date(iso);

/** The services' search filter: candidates by any word, then every word required. */
function allWords(query: string): Filter {
  return { $text: { $search: textSearchOf(query) }, searchTerms: { $all: searchWords(query) } };
}

/** A sort key that orders numbers, strings and Dates (the only values these cases produce). */
function sortKey(value: Scalar): string | number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number' || typeof value === 'string') return value;
  throw new Error(`unexpected counted value ${String(value)}`);
}

function sortedByValue(counts: ValueCount[]): ValueCount[] {
  return [...counts].sort((a, b) => {
    const x = sortKey(a.value);
    const y = sortKey(b.value);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** `[[value, count], …]` as the port returns it. */
function counts(...pairs: Array<[Scalar, number]>): ValueCount[] {
  return pairs.map(([value, count]) => ({ value, count }));
}

/**
 * Seven events: scalar references (some null, one missing), array references (overlapping, one
 * empty, one repeating an element), two equal start dates. Titles hold the only searchable words
 * (description and excerpt are empty).
 */
function fixtureEvents(): EventDoc[] {
  const event = (overrides: Partial<EventDoc>): EventDoc => makeEventDoc({ description: '', excerpt: '', ...overrides });
  const noVenueField = event({
    _id: 6,
    slug: 'c-6',
    title: 'Night of jazz',
    startUtc: at('2025-04-01T18:00:00Z'),
    categoryIds: [8, 5],
  });
  delete (noVenueField as Partial<EventDoc>).venueId;
  return [
    event({
      _id: 1,
      slug: 'c-1',
      title: 'Jazz night at Café Blue',
      startUtc: at('2025-04-01T18:00:00Z'),
      venueId: 10,
      categoryIds: [5, 6],
      image: { url: 'https://img.example/c-1.jpg', extension: 'jpg' },
    }),
    event({
      _id: 2,
      slug: 'c-2',
      status: 'draft',
      title: 'Jazz brunch',
      startUtc: at('2025-04-05T11:00:00Z'),
      venueId: 11,
      categoryIds: [5, 6],
      image: { url: 'https://img.example/c-2.jpg', extension: 'jpg' },
    }),
    event({
      _id: 3,
      slug: 'c-3',
      title: 'Classical concert',
      startUtc: at('2025-04-10T18:00:00Z'),
      venueId: null,
      categoryIds: [],
    }),
    event({
      _id: 4,
      slug: 'c-4',
      status: 'trash',
      title: 'Jazz and blues night',
      startUtc: at('2025-05-01T20:00:00Z'),
      venueId: 10,
      categoryIds: [7],
    }),
    event({
      _id: 5,
      slug: 'c-5',
      title: 'Blues night',
      startUtc: at('2025-03-20T19:30:00Z'),
      venueId: 12,
      // 6 twice: the document still counts once for it.
      categoryIds: [6, 7, 6],
      image: { url: 'https://img.example/c-5.png', extension: 'png' },
    }),
    noVenueField,
    event({
      _id: 7,
      slug: 'c-7',
      title: 'Opera gala',
      startUtc: at('2025-04-12T19:00:00Z'),
      venueId: 10,
      categoryIds: [5],
    }),
  ];
}

describe.each(engineCases)('%s engine: countValues', (_name, engine) => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
    for (const event of fixtureEvents()) await storage.events.insertOne(event);
  });
  afterEach(async () => {
    await storage.close();
  });

  async function countValues(field: string, filter: Filter = {}): Promise<ValueCount[]> {
    return sortedByValue(await storage.events.countValues(field, filter));
  }

  it('of an array field counts each document once per element it holds', async () => {
    // 5: events 1, 2, 6, 7; 6: events 1, 2, 5 (5 holds it twice); 7: events 4, 5; 8: event 6.
    expect(await countValues('categoryIds')).toEqual(counts([5, 4], [6, 3], [7, 2], [8, 1]));
  });

  it('counts an element repeated within one document once', async () => {
    expect(await countValues('categoryIds', { _id: 5 })).toEqual(counts([6, 1], [7, 1]));
    expect(await countValues('categoryIds', { _id: { $in: [1, 5] } })).toEqual(counts([5, 1], [6, 2], [7, 1]));
  });

  it('of a scalar field leaves out null and missing values', async () => {
    // Event 3 has venueId null, event 6 none at all.
    expect(await countValues('venueId')).toEqual(counts([10, 3], [11, 1], [12, 1]));
    expect(await countValues('status')).toEqual(counts(['draft', 1], ['publish', 5], ['trash', 1]));
  });

  it('groups equal Dates', async () => {
    const starts = await countValues('startUtc');
    expect(starts).toEqual(
      counts(
        [at('2025-03-20T19:30:00Z'), 1],
        [at('2025-04-01T18:00:00Z'), 2],
        [at('2025-04-05T11:00:00Z'), 1],
        [at('2025-04-10T18:00:00Z'), 1],
        [at('2025-04-12T19:00:00Z'), 1],
        [at('2025-05-01T20:00:00Z'), 1],
      ),
    );
    expect(starts.every(({ value }) => value instanceof Date)).toBe(true);
  });

  it('follows a dotted path into embedded documents', async () => {
    expect(await countValues('image.extension')).toEqual(counts(['jpg', 2], ['png', 1]));
  });

  it('over the published documents only', async () => {
    // Events 1, 3, 5, 6 and 7.
    const published: Filter = { status: 'publish' };
    expect(await countValues('categoryIds', published)).toEqual(counts([5, 3], [6, 2], [7, 1], [8, 1]));
    expect(await countValues('venueId', published)).toEqual(counts([10, 2], [12, 1]));
  });

  it('over the documents matching a status and a date range', async () => {
    const filter: Filter = {
      status: 'publish',
      startUtc: { $gte: at('2025-04-01T00:00:00Z'), $lt: at('2025-04-15T00:00:00Z') },
    };
    // Events 1, 3, 6 and 7.
    expect(await countValues('categoryIds', filter)).toEqual(counts([5, 3], [6, 1], [8, 1]));
    expect(await countValues('venueId', filter)).toEqual(counts([10, 2]));
    expect(await countValues('categoryIds', { status: { $in: ['draft', 'trash'] } })).toEqual(counts([5, 1], [6, 1], [7, 1]));
  });

  it('over the documents holding one array element (co-occurrence)', async () => {
    // Events 1, 2, 6 and 7 hold category 5.
    expect(await countValues('categoryIds', { categoryIds: 5 })).toEqual(counts([5, 4], [6, 2], [8, 1]));
  });

  it('is empty when nothing matches or nothing is held', async () => {
    expect(await countValues('venueId', { status: 'future' })).toEqual([]);
    expect(await countValues('categoryIds', { _id: { $in: [] } })).toEqual([]);
    expect(await countValues('categoryIds', allWords('symphony'))).toEqual([]);
    // Event 3's categories are an empty array.
    expect(await countValues('categoryIds', { _id: 3 })).toEqual([]);
    expect(await countValues('tagIds')).toEqual([]);
    expect(await countValues('postParent')).toEqual([]);
    expect(await countValues('noSuchField')).toEqual([]);
  });

  it('combines with the all-words $text pattern', async () => {
    // "jazz night": events 1, 4 and 6 ("of" is a stop word); 2 lacks "night", 5 lacks "jazz".
    expect(await countValues('categoryIds', allWords('jazz night'))).toEqual(counts([5, 2], [6, 1], [7, 1], [8, 1]));
    expect(await countValues('venueId', allWords('jazz night'))).toEqual(counts([10, 2]));
    expect(await countValues('categoryIds', { ...allWords('jazz night'), status: 'publish' })).toEqual(counts([5, 2], [6, 1], [8, 1]));
    expect(await countValues('venueId', { $and: [allWords('jazz night'), { status: 'publish' }] })).toEqual(counts([10, 1]));
    // "blues" and "Blue" share the stem "blue": events 1, 4 and 5.
    expect(await countValues('categoryIds', allWords('blues'))).toEqual(counts([5, 1], [6, 2], [7, 2]));
    expect(await countValues('status', { $text: { $search: 'jazz' } })).toEqual(counts(['draft', 1], ['publish', 2], ['trash', 1]));
  });

  it('returns copies: changing a returned Date leaves the stored one', async () => {
    const [first] = await storage.events.countValues('startUtc', { _id: 5 });
    expect(first?.value).toBeInstanceOf(Date);
    (first!.value as Date).setTime(0);
    expect((await storage.events.findById(5))!.startUtc).toEqual(at('2025-03-20T19:30:00Z'));
  });

  it.each<[string, () => Promise<ValueCount[]>]>([
    ['an unknown filter operator', () => storage.events.countValues('venueId', { status: { $foo: 1 } } as unknown as Filter)],
    ['$text inside $nor', () => storage.events.countValues('venueId', { $nor: [{ $text: { $search: 'jazz' } }] })],
    ['$text on a collection without a text index', () => storage.categories.countValues('parent', { $text: { $search: 'jazz' } })],
  ])('refuses %s on every engine', async (_name, run) => {
    await expect(run()).rejects.toThrow();
    if (engine.name === 'embedded') await expect(run()).rejects.toBeInstanceOf(UnsupportedQueryError);
  });

  it.each<[string, string]>([
    ['an operator', '$natural'],
    ['an empty path', ''],
    ['an empty segment', 'image..extension'],
  ])('refuses a field that is %s (embedded only)', async (_name, field) => {
    // Named exemption: the mongodb engine hands the path to the server unchecked, as it does for
    // distinct; the port only takes plain field paths, and the embedded engine refuses anything else.
    if (engine.name !== 'embedded') return;
    await expect(storage.events.countValues(field, {})).rejects.toBeInstanceOf(UnsupportedQueryError);
  });
});

describe.each(engineCases)('%s engine: countValues over an indexed field at scale', (_name, engine) => {
  // Enough events for the embedded engine to count from its sorted indexes (events_venue_start_id,
  // events_categories_start_id) instead of reading documents; the expected counts are worked out
  // here from the fixture itself.
  const events = Array.from({ length: 4000 }, (_, i) =>
    makeEventDoc({
      _id: i + 1,
      slug: `scale-${i + 1}`,
      status: i % 5 === 0 ? 'draft' : 'publish',
      venueId: i % 7 === 0 ? null : 100 + (i % 60),
      categoryIds: [1 + (i % 9), 1 + ((i * 7) % 13)],
      startUtc: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000),
    }),
  );
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
    await storage.ensureIndexes();
    for (const event of events) await storage.events.insertOne(event);
  });
  afterEach(async () => {
    await storage.close();
  });

  function expected(field: 'venueId' | 'categoryIds', keep: (event: EventDoc) => boolean): ValueCount[] {
    const tally = new Map<number, number>();
    for (const event of events.filter(keep)) {
      const values = field === 'venueId' ? (event.venueId === null ? [] : [event.venueId]) : [...new Set(event.categoryIds)];
      for (const value of values) tally.set(value, (tally.get(value) ?? 0) + 1);
    }
    return sortedByValue([...tally].map(([value, count]) => ({ value, count })));
  }

  it('counts every value, and only the listed ones when the filter lists values of a scalar field', async () => {
    const listed = [100, 101, 102, 130, 159, 101, 100.0, 999];
    expect(sortedByValue(await storage.events.countValues('venueId', { status: 'publish' }))).toEqual(expected('venueId', (e) => e.status === 'publish'));
    expect(sortedByValue(await storage.events.countValues('venueId', { $and: [{ status: 'publish' }, { venueId: { $in: listed } }] }))).toEqual(
      expected('venueId', (e) => e.status === 'publish' && e.venueId !== null && listed.includes(e.venueId)),
    );
  });

  it('counts listed values right when asked again, for overlapping lists and after every kind of write', async () => {
    // The embedded engine remembers listed counts per rest of the filter; each write must drop them.
    const live = new Map(events.map((event) => [event._id, { ...event }]));
    const check = async (listed: number[]) => {
      const filter = { $and: [{ status: 'publish' }, { venueId: { $in: listed } }] };
      const want = sortedByValue(
        [...new Set(listed)]
          .map((value) => ({ value, count: [...live.values()].filter((e) => e.status === 'publish' && e.venueId === value).length }))
          .filter((group) => group.count > 0),
      );
      expect(sortedByValue(await storage.events.countValues('venueId', filter))).toEqual(want);
    };
    // A few values are counted one by one, many (four here, at 1,000 entries per value) in one
    // pass over the index that answers for every value.
    const near = [100, 101, 102, 103];
    await check([100]);
    await check([101, 150]);
    await check(near);
    await check([102, 103, 104, 105]);
    await check(near);
    await storage.events.insertOne(makeEventDoc({ _id: 9001, slug: 'scale-new', status: 'publish', venueId: 101 }));
    live.set(9001, makeEventDoc({ _id: 9001, slug: 'scale-new', status: 'publish', venueId: 101 }));
    await check([101]);
    await check(near);
    await storage.events.updateById(2, { $set: { venueId: 103 } });
    live.get(2)!.venueId = 103;
    await check(near);
    await storage.events.updateMany({ venueId: 102 }, { $set: { status: 'draft' } });
    for (const event of live.values()) if (event.venueId === 102) event.status = 'draft';
    await check([102]);
    await check(near);
    await storage.events.deleteById(9001);
    live.delete(9001);
    await check(near);
  });

  it('counts listed values right when a Date bound of the rest of the filter moves', async () => {
    // The embedded engine carries counts over to a moved bound only when no document lies between.
    const listed = [100, 101, 102, 103, 104, 105];
    const hour = 3_600_000;
    const base = Date.UTC(2026, 0, 1);
    const check = async (from: number, to: number) => {
      const filter = { $and: [{ startUtc: { $gte: new Date(from) } }, { startUtc: { $lte: new Date(to) } }, { venueId: { $in: listed } }] };
      const want = expected('venueId', (e) => e.venueId !== null && listed.includes(e.venueId) && e.startUtc.getTime() >= from && e.startUtc.getTime() <= to);
      expect(sortedByValue(await storage.events.countValues('venueId', filter))).toEqual(want);
    };
    const from = base + 100.5 * hour;
    await check(from, base + 2000.5 * hour);
    // No event starts within these moves (events start on the hour).
    await check(from + 0.25 * hour, base + 2000.5 * hour);
    await check(from + 0.25 * hour, base + 2000.75 * hour);
    // These pass events by.
    await check(from + 0.25 * hour, base + 2300.5 * hour);
    await check(from + 40 * hour, base + 2300.5 * hour);
    await check(from, base + 2000.5 * hour);
    await check(base - 5 * hour, base + 5000 * hour);
    // Two windows of one shape in turn, each moving a little (the default window and next week's
    // under a status bound that moves every second).
    for (let step = 0; step < 4; step++) {
      await check(from + step * 0.1 * hour, base + 300.5 * hour);
      await check(base + 1000.5 * hour, base + (1200.5 + step * 0.1) * hour);
    }
  });

  it('counts the other elements of an array field when the filter lists some of them', async () => {
    const listed = [3, 4];
    expect(sortedByValue(await storage.events.countValues('categoryIds', { $and: [{ status: 'publish' }, { categoryIds: { $in: listed } }] }))).toEqual(
      expected('categoryIds', (e) => e.status === 'publish' && e.categoryIds.some((c) => listed.includes(c))),
    );
  });
});
