/**
 * Storage contract: `$text` through the text indexes of indexes/*.ts, and the "every word"
 * pattern the services build on it, on every engine.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnsupportedQueryError } from '../../src/errors.js';
import { searchWords, textSearchOf } from '../../src/lib/text.js';
import { type EventDoc, type Filter, type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc, makeOrganizerDoc, makeVenueDoc } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();
/** [name, engine] pairs: a plain name in test titles. */
const engineCases = engines.map((engine) => [engine.name, engine] as const);

/** The services' search filter: candidates by any word, then every word required. */
function allWords(query: string): Filter {
  return { $text: { $search: textSearchOf(query) }, searchTerms: { $all: searchWords(query) } };
}

describe.each(engineCases)('%s engine: $text', (_name, engine) => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
    // Empty default description/excerpt, so each event holds only the words the cases name.
    const event = (overrides: Partial<EventDoc>): EventDoc => makeEventDoc({ description: '', excerpt: '', ...overrides });
    const events = [
      event({ _id: 1, slug: 'jazz', title: 'Jazz night at Café Blue', excerpt: 'Live quartet' }),
      event({ _id: 2, slug: 'club', title: 'Running club meetup', description: 'Everyone welcome' }),
      event({ _id: 3, slug: 'classical', title: 'Classical concert', excerpt: 'Chamber music' }),
      event({ _id: 4, slug: 'lecture', title: 'CAFE SOCIETY lecture', description: 'History of coffee' }),
      event({ _id: 5, slug: 'morning', title: 'Morning routine', description: 'She runs every morning.' }),
      event({ _id: 6, slug: 'agreed', title: 'Agreed programme', status: 'draft' }),
    ];
    for (const event of events) await storage.events.insertOne(event);
  });
  afterEach(async () => {
    await storage.close();
  });

  async function idsOf(filter: Filter): Promise<number[]> {
    return (await storage.events.find({ filter, sort: [['_id', 1]] })).map((event) => event._id);
  }

  it.each<[string, string, number[]]>([
    ['one word', 'jazz', [1]],
    ['any of several words', 'jazz classical', [1, 3]],
    ['case-insensitively', 'JAZZ', [1]],
    ['without diacritics in the query', 'cafe', [1, 4]],
    ['with diacritics in the query', 'CAFÉ', [1, 4]],
    ['a stemmed form ("running" finds "runs")', 'running', [2, 5]],
    ['another stemmed form ("runs" finds "running")', 'runs', [2, 5]],
    ['words of the excerpt', 'quartet', [1]],
    ['words of the description', 'coffee', [4]],
    ['punctuation around words', 'jazz!!! (classical)', [1, 3]],
    ['stop words besides a real word', 'the jazz of it', [1]],
    ['a word no document has', 'opera', []],
    ['stop words only: nothing', 'the and of', []],
    ['no word at all: nothing', '   ', []],
    ['a word only as part of another: nothing', 'jaz', []],
  ])('finds %s', async (_name, search, expected) => {
    expect(await idsOf({ $text: { $search: search } })).toEqual(expected);
  });

  it.each<[string, string, number[]]>([
    ['every word must match', 'jazz café', [1]],
    ['in any order and case', 'CAFE jazz', [1]],
    ['stemmed words', 'run club', [2]],
    ['words spread over fields', 'classical chamber', [3]],
    ['one word missing: nothing', 'jazz coffee', []],
    ['a single word behaves like $text', 'cafe', [1, 4]],
    // Porter2 is not idempotent ("agreed" → "agre" → "agr"): $search gets the words, not stems.
    ['a word whose stem stems again', 'agreed', [6]],
  ])('all-words pattern: %s', async (_name, query, expected) => {
    expect(await idsOf(allWords(query))).toEqual(expected);
  });

  it('combines $text with other conditions, sort, skip and limit', async () => {
    const filter: Filter = { $text: { $search: 'cafe running classical' }, status: 'publish' };
    const page = await storage.events.findPage({
      filter,
      sort: [
        ['title', 1],
        ['_id', 1],
      ],
      skip: 1,
      limit: 2,
    });
    // Binary order of titles: "CAFE SOCIETY…" (4) < "Classical…" (3) < "Jazz…" (1) < "Morning…" (5) < "Running…" (2).
    expect(page.items.map((event) => event._id)).toEqual([3, 1]);
    expect(page.total).toBe(5);
    expect(await storage.events.count({ $and: [{ $text: { $search: 'jazz' } }, { status: 'draft' }] })).toBe(0);
    expect(await storage.events.findOne({ $text: { $search: 'quartet' } })).toMatchObject({ _id: 1 });
  });

  it('accepts the explicit default options', async () => {
    const filter: Filter = {
      $text: { $search: 'jazz', $language: 'english', $caseSensitive: false, $diacriticSensitive: false },
    };
    expect(await idsOf(filter)).toEqual([1]);
  });

  it('keeps the text index current on update and delete', async () => {
    await storage.events.updateById(1, { $set: { title: 'Blues night', excerpt: 'Trio' } });
    expect(await idsOf({ $text: { $search: 'jazz' } })).toEqual([]);
    expect(await idsOf({ $text: { $search: 'blues' } })).toEqual([1]);
    await storage.events.updateById(3, { $unset: ['excerpt'] });
    expect(await idsOf({ $text: { $search: 'chamber' } })).toEqual([]);
    await storage.events.deleteById(4);
    expect(await idsOf({ $text: { $search: 'cafe' } })).toEqual([]);
    await storage.events.insertOne(makeEventDoc({ _id: 7, slug: 'new', title: 'New café', description: '', excerpt: '' }));
    expect(await idsOf({ $text: { $search: 'cafe' } })).toEqual([7]);
  });

  it('searches the venue and organizer fields of their text indexes', async () => {
    await storage.venues.insertOne(makeVenueDoc({ _id: 21, slug: 'hall', name: 'Philharmonie', city: 'Berlin', zip: '10785' }));
    await storage.venues.insertOne(makeVenueDoc({ _id: 22, slug: 'park', name: 'Sanssouci', city: 'Potsdam', zip: '14469' }));
    await storage.organizers.insertOne(makeOrganizerDoc({ _id: 31, slug: 'ensemble', name: 'Ensemble Modern', email: 'booking@ensemble.example' }));
    const venueIds = async (search: string): Promise<number[]> =>
      (await storage.venues.find({ filter: { $text: { $search: search } }, sort: [['_id', 1]] })).map((v) => v._id);
    expect(await venueIds('potsdam')).toEqual([22]);
    expect(await venueIds('10785')).toEqual([21]);
    expect(await venueIds('philharmonie sanssouci')).toEqual([21, 22]);
    const organizers = await storage.organizers.find({ filter: { $text: { $search: 'booking' } } });
    expect(organizers.map((o) => o._id)).toEqual([31]);
  });

  it.each<[string, Filter]>([
    ['two $text expressions', { $text: { $search: 'jazz' }, $and: [{ $text: { $search: 'blue' } }] }],
    // MongoDB needs every other $or clause indexed to serve $text under $or; website is not.
    ['$text inside $or', { $or: [{ $text: { $search: 'jazz' } }, { website: 'https://example.org' }] }],
    ['$text inside $nor', { $nor: [{ $text: { $search: 'jazz' } }] }],
    ['$search that is not a string', { $text: { $search: 42 } } as unknown as Filter],
  ])('refuses %s on every engine', async (_name, filter) => {
    const run = storage.events.find({ filter });
    await expect(run).rejects.toThrow();
    if (engine.name === 'embedded') await expect(run).rejects.toBeInstanceOf(UnsupportedQueryError);
  });

  it('refuses $text on a collection without a text index on every engine', async () => {
    const run = storage.categories.find({ filter: { $text: { $search: 'jazz' } } });
    await expect(run).rejects.toThrow();
    if (engine.name === 'embedded') await expect(run).rejects.toBeInstanceOf(UnsupportedQueryError);
  });

  it.each<[string, string, number[]]>([
    ['a phrase', '"jazz night"', [1]],
    ['a negated word', 'cafe -jazz', [4]],
  ])('refuses %s in $search (embedded only)', async (_name, search, mongoResult) => {
    const run = idsOf({ $text: { $search: search } });
    if (engine.name === 'embedded') {
      // Named exemption: MongoDB supports phrases and negations; the services never emit them,
      // so the embedded engine refuses instead of approximating them.
      await expect(run).rejects.toBeInstanceOf(UnsupportedQueryError);
    } else {
      expect(await run).toEqual(mongoResult);
    }
  });

  it('treats a hyphen inside a word as a separator, not a negation', async () => {
    expect(await idsOf({ $text: { $search: 'jazz-classical' } })).toEqual([1, 3]);
    expect(await idsOf({ $text: { $search: 'jazz - classical' } })).toEqual([1, 3]);
  });
});
