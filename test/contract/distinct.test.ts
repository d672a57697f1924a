/**
 * Storage contract: `distinct` (port.ts) — array fields contribute their elements, null and
 * missing values are left out, the filter language is the one of `find` ($text included), on every
 * engine. Order is not part of the contract, so results are compared sorted.
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

const at = (iso: string): Date => new Date(iso);

/** The services' search filter: candidates by any word, then every word required. */
function allWords(query: string): Filter {
  return { $text: { $search: textSearchOf(query) }, searchTerms: { $all: searchWords(query) } };
}

/** A sort key that orders numbers, strings and Dates (the only values these cases produce). */
function sortKey(value: Scalar): string | number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number' || typeof value === 'string') return value;
  throw new Error(`unexpected distinct value ${String(value)}`);
}

function sorted(values: Scalar[]): Scalar[] {
  return [...values].sort((a, b) => {
    const x = sortKey(a);
    const y = sortKey(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/**
 * Six events: scalar references (some null, one missing), array references (some empty),
 * repeated values across documents and two equal start dates. Titles hold the only searchable
 * words (description and excerpt are empty).
 */
function fixtureEvents(): EventDoc[] {
  const event = (overrides: Partial<EventDoc>): EventDoc => makeEventDoc({ description: '', excerpt: '', ...overrides });
  const noVenueField = event({
    _id: 6,
    slug: 'd-6',
    title: 'Night of jazz',
    startUtc: at('2025-04-01T18:00:00Z'),
    organizerIds: [103],
    categoryIds: [8],
  });
  delete (noVenueField as Partial<EventDoc>).venueId;
  return [
    event({
      _id: 1,
      slug: 'd-1',
      title: 'Jazz night at Café Blue',
      startUtc: at('2025-04-01T18:00:00Z'),
      venueId: 10,
      organizerIds: [100, 101],
      categoryIds: [5],
      image: { url: 'https://img.example/d-1.jpg', extension: 'jpg' },
    }),
    event({
      _id: 2,
      slug: 'd-2',
      status: 'draft',
      title: 'Jazz brunch',
      startUtc: at('2025-04-05T11:00:00Z'),
      venueId: 11,
      organizerIds: [101],
      categoryIds: [5, 6],
      image: { url: 'https://img.example/d-2.jpg', extension: 'jpg' },
    }),
    event({
      _id: 3,
      slug: 'd-3',
      title: 'Classical concert',
      startUtc: at('2025-04-10T18:00:00Z'),
      venueId: null,
      organizerIds: [],
      categoryIds: [],
    }),
    event({
      _id: 4,
      slug: 'd-4',
      status: 'trash',
      title: 'Jazz and blues night',
      startUtc: at('2025-05-01T20:00:00Z'),
      venueId: 10,
      organizerIds: [102],
      categoryIds: [7],
    }),
    event({
      _id: 5,
      slug: 'd-5',
      title: 'Blues night',
      startUtc: at('2025-03-20T19:30:00Z'),
      venueId: 12,
      organizerIds: [100],
      categoryIds: [6, 7],
      image: { url: 'https://img.example/d-5.png', extension: 'png' },
    }),
    noVenueField,
  ];
}

describe.each(engineCases)('%s engine: distinct', (_name, engine) => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
    for (const event of fixtureEvents()) await storage.events.insertOne(event);
  });
  afterEach(async () => {
    await storage.close();
  });

  async function distinct(field: string, filter: Filter = {}): Promise<Scalar[]> {
    return sorted(await storage.events.distinct(field, filter));
  }

  it('of a scalar field leaves out null and missing values', async () => {
    expect(await distinct('venueId')).toEqual([10, 11, 12]);
    expect(await distinct('status')).toEqual(['draft', 'publish', 'trash']);
  });

  it('keeps one of equal Dates', async () => {
    const starts = await distinct('startUtc');
    expect(starts).toEqual([
      at('2025-03-20T19:30:00Z'),
      at('2025-04-01T18:00:00Z'),
      at('2025-04-05T11:00:00Z'),
      at('2025-04-10T18:00:00Z'),
      at('2025-05-01T20:00:00Z'),
    ]);
    expect(starts.every((value) => value instanceof Date)).toBe(true);
  });

  it('of an array field contributes the elements; empty arrays contribute nothing', async () => {
    expect(await distinct('organizerIds')).toEqual([100, 101, 102, 103]);
    expect(await distinct('categoryIds')).toEqual([5, 6, 7, 8]);
  });

  it('of a field that is null or missing everywhere is empty', async () => {
    expect(await distinct('postParent')).toEqual([]);
    expect(await distinct('noSuchField')).toEqual([]);
  });

  it('follows a dotted path into embedded documents', async () => {
    expect(await distinct('image.extension')).toEqual(['jpg', 'png']);
  });

  it('over the documents matching a status and a date range', async () => {
    const filter: Filter = {
      status: 'publish',
      startUtc: { $gte: at('2025-04-01T00:00:00Z'), $lt: at('2025-04-15T00:00:00Z') },
    };
    // Events 1, 3 and 6.
    expect(await distinct('venueId', filter)).toEqual([10]);
    expect(await distinct('organizerIds', filter)).toEqual([100, 101, 103]);
    expect(await distinct('categoryIds', filter)).toEqual([5, 8]);
    expect(await distinct('categoryIds', { status: { $in: ['draft', 'trash'] } })).toEqual([5, 6, 7]);
  });

  it('over the documents of an $in on _id', async () => {
    const filter: Filter = { _id: { $in: [2, 5, 99] } };
    expect(await distinct('venueId', filter)).toEqual([11, 12]);
    expect(await distinct('organizerIds', filter)).toEqual([100, 101]);
    expect(await distinct('categoryIds', { _id: { $in: [3] } })).toEqual([]);
  });

  it('is empty when nothing matches', async () => {
    expect(await distinct('venueId', { status: 'future' })).toEqual([]);
    expect(await distinct('organizerIds', { _id: { $in: [] } })).toEqual([]);
    expect(await distinct('categoryIds', allWords('opera'))).toEqual([]);
  });

  it('combines with the all-words $text pattern', async () => {
    // "jazz night": events 1, 4 and 6 ("of" is a stop word); 2 lacks "night", 5 lacks "jazz".
    expect(await distinct('venueId', allWords('jazz night'))).toEqual([10]);
    expect(await distinct('organizerIds', allWords('jazz night'))).toEqual([100, 101, 102, 103]);
    expect(await distinct('organizerIds', { ...allWords('jazz night'), status: 'publish' })).toEqual([100, 101, 103]);
    // "blues" and "Blue" share the stem "blue": events 1, 4 and 5.
    expect(await distinct('categoryIds', allWords('blues'))).toEqual([5, 6, 7]);
    expect(await distinct('status', { $text: { $search: 'jazz' } })).toEqual(['draft', 'publish', 'trash']);
  });

  it('returns copies: changing a returned Date leaves the stored one', async () => {
    const [first] = await storage.events.distinct('startUtc', { _id: 5 });
    expect(first).toBeInstanceOf(Date);
    (first as Date).setTime(0);
    expect((await storage.events.findById(5))!.startUtc).toEqual(at('2025-03-20T19:30:00Z'));
  });

  it.each<[string, () => Promise<Scalar[]>]>([
    ['an unknown filter operator', () => storage.events.distinct('venueId', { status: { $foo: 1 } } as unknown as Filter)],
    ['$text inside $nor', () => storage.events.distinct('venueId', { $nor: [{ $text: { $search: 'jazz' } }] })],
    ['$text on a collection without a text index', () => storage.categories.distinct('parent', { $text: { $search: 'jazz' } })],
  ])('refuses %s on every engine', async (_name, run) => {
    await expect(run()).rejects.toThrow();
    if (engine.name === 'embedded') await expect(run()).rejects.toBeInstanceOf(UnsupportedQueryError);
  });

  it.each<[string, string]>([
    ['an operator', '$natural'],
    ['an empty path', ''],
    ['an empty segment', 'image..extension'],
  ])('refuses a field that is %s (embedded only)', async (_name, field) => {
    // Named exemption: the mongodb engine hands the key to the server unchecked, as it does sort
    // keys; the port only takes plain field paths, and the embedded engine refuses anything else.
    if (engine.name !== 'embedded') return;
    await expect(storage.events.distinct(field, {})).rejects.toBeInstanceOf(UnsupportedQueryError);
  });
});
