/**
 * Storage contract: the building blocks of GET /venues and GET /organizers (src/services/linked-posts.ts)
 * on every engine — the status filter of src/query/status.ts (a `future` post whose date has passed
 * reads as published), `distinct` over the events' `venueId` / `organizerIds` as the has_events and
 * only_with_upcoming filters use it, and the all-words search over the venue and organizer text
 * indexes, combined the way the list query combines them (`$and`, name-then-id order, paging).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { searchTermsOf, searchWords, textSearchOf } from '../../src/lib/text.js';
import { NON_TRASH_STATUSES, statusFilter } from '../../src/query/status.js';
import { effectiveStatus } from '../../src/services/access.js';
import { organizerDefinition } from '../../src/services/organizers.js';
import { venueDefinition } from '../../src/services/venues.js';
import {
  type CompiledQuery,
  type EventDoc,
  type Filter,
  type OrganizerDoc,
  type PostStatus,
  type Scalar,
  type Storage,
  type VenueDoc,
} from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc, makeOrganizerDoc, makeVenueDoc } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();
const engineCases = engines.map((engine) => [engine.name, engine] as const);

const NOW = new Date('2025-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const after = (ms: number) => new Date(NOW.getTime() + ms);

/** The list's search clause (src/services/linked-posts.ts): candidates by any word, then every word. */
function allWords(query: string): Filter {
  return { $text: { $search: textSearchOf(query) }, searchTerms: { $all: searchWords(query) } };
}

/** Event statuses that make a venue or organizer "have events": not draft or pending (nor trash). */
const LIVE_EVENT_STATUSES: PostStatus[] = ['publish', 'future', 'private'];

const numeric = (values: Scalar[]) => (values as number[]).slice().sort((a, b) => a - b);

/** Venues whose searchTerms come from the service's own list of searched fields. */
function venue(overrides: Partial<VenueDoc>): VenueDoc {
  const doc = makeVenueDoc({
    description: '',
    address: '',
    city: '',
    country: '',
    province: '',
    state: '',
    zip: '',
    phone: '',
    stateprovince: '',
    ...overrides,
  });
  return { ...doc, searchTerms: searchTermsOf(...venueDefinition.searchTexts(doc)) };
}

function organizer(overrides: Partial<OrganizerDoc>): OrganizerDoc {
  const doc = makeOrganizerDoc({ description: '', phone: '', email: '', website: '', ...overrides });
  return { ...doc, searchTerms: searchTermsOf(...organizerDefinition.searchTexts(doc)) };
}

describe.each(engineCases)('%s engine: the status filter (src/query/status.ts)', (_name, engine) => {
  let storage: Storage;
  /** One venue per status, plus scheduled ones due, exactly due and still ahead. */
  const fixtures: VenueDoc[] = [
    venue({ _id: 1, slug: 's-1', name: 'Published', status: 'publish', dateUtc: after(-DAY) }),
    venue({ _id: 2, slug: 's-2', name: 'Scheduled, due', status: 'future', dateUtc: after(-HOUR) }),
    venue({ _id: 3, slug: 's-3', name: 'Scheduled, ahead', status: 'future', dateUtc: after(DAY) }),
    venue({ _id: 4, slug: 's-4', name: 'Draft', status: 'draft' }),
    venue({ _id: 5, slug: 's-5', name: 'Pending', status: 'pending' }),
    venue({ _id: 6, slug: 's-6', name: 'Private', status: 'private' }),
    venue({ _id: 7, slug: 's-7', name: 'Trashed', status: 'trash' }),
    venue({ _id: 8, slug: 's-8', name: 'Scheduled for now', status: 'future', dateUtc: NOW }),
    // A published post dated in the future (imported data) is still published.
    venue({ _id: 9, slug: 's-9', name: 'Published ahead', status: 'publish', dateUtc: after(DAY) }),
  ];
  beforeEach(async () => {
    storage = await engine.open();
    for (const doc of fixtures) await storage.venues.insertOne(doc);
  });
  afterEach(async () => {
    await storage.close();
  });

  const idsOf = async (filter: Filter) => (await storage.venues.find({ filter, sort: [['_id', 1]] })).map((d) => d._id);

  it.each<[string, readonly PostStatus[], number[]]>([
    ['publish: published and due scheduled posts', ['publish'], [1, 2, 8, 9]],
    ['future: only scheduled posts still ahead', ['future'], [3]],
    ['publish and future: every published or scheduled post', ['publish', 'future'], [1, 2, 3, 8, 9]],
    ['draft', ['draft'], [4]],
    ['draft and pending', ['draft', 'pending'], [4, 5]],
    ['publish and draft', ['publish', 'draft'], [1, 2, 4, 8, 9]],
    ['future and private', ['future', 'private'], [3, 6]],
    ['every status but trash', NON_TRASH_STATUSES, [1, 2, 3, 4, 5, 6, 8, 9]],
    ['trash', ['trash'], [7]],
    ['publish and trash', ['publish', 'trash'], [1, 2, 7, 8, 9]],
  ])('%s', async (_label, statuses, expected) => {
    expect(await idsOf(statusFilter(statuses, NOW))).toEqual(expected);
    // The filter selects exactly what readers see through effectiveStatus.
    expect(fixtures.filter((d) => statuses.includes(effectiveStatus(d, NOW))).map((d) => d._id)).toEqual(expected);
  });

  it('moves with the clock: an hour earlier the due post is still ahead', async () => {
    const earlier = after(-2 * HOUR);
    expect(await idsOf(statusFilter(['publish'], earlier))).toEqual([1, 9]);
    expect(await idsOf(statusFilter(['future'], earlier))).toEqual([2, 3, 8]);
  });

  it('pages and counts inside $and, ordered by name key then id, as the list query does', async () => {
    await storage.venues.insertOne(venue({ _id: 10, slug: 's-10', name: 'published', status: 'publish' }));
    const query: CompiledQuery = {
      filter: { $and: [statusFilter(['publish'], NOW)] },
      sort: [
        ['nameKey', 1],
        ['_id', 1],
      ],
      skip: 1,
      limit: 3,
    };
    const page = await storage.venues.findPage(query);
    // Name keys: "published" (1, 10), "published ahead" (9), "scheduled for now" (8), "scheduled, due" (2).
    expect(page.total).toBe(5);
    expect(page.items.map((d) => d._id)).toEqual([10, 9, 8]);
  });
});

describe.each(engineCases)('%s engine: distinct links for has_events and only_with_upcoming', (_name, engine) => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
    const event = (overrides: Partial<EventDoc>) =>
      makeEventDoc({ description: '', excerpt: '', dateUtc: after(-DAY), startUtc: after(10 * DAY), endUtc: after(10 * DAY + HOUR), ...overrides });
    const events = [
      event({ _id: 1, slug: 'e-1', status: 'publish', venueId: 10, organizerIds: [100, 101] }),
      event({ _id: 2, slug: 'e-2', status: 'draft', venueId: 11, organizerIds: [102] }),
      event({ _id: 3, slug: 'e-3', status: 'pending', venueId: 12, organizerIds: [103] }),
      event({ _id: 4, slug: 'e-4', status: 'private', venueId: 13, organizerIds: [104] }),
      event({ _id: 5, slug: 'e-5', status: 'publish', venueId: 14, organizerIds: [105, 100], startUtc: after(-10 * DAY), endUtc: after(-10 * DAY + HOUR) }),
      event({ _id: 6, slug: 'e-6', status: 'future', dateUtc: after(-HOUR), venueId: 15, organizerIds: [106], startUtc: after(5 * DAY) }),
      event({ _id: 7, slug: 'e-7', status: 'future', dateUtc: after(DAY), venueId: 16, organizerIds: [107], startUtc: after(5 * DAY) }),
      event({ _id: 8, slug: 'e-8', status: 'trash', venueId: 17, organizerIds: [108] }),
      event({ _id: 9, slug: 'e-9', status: 'publish', venueId: null, organizerIds: [], startUtc: after(DAY) }),
      // Starts exactly now: upcoming (start ≥ now).
      event({ _id: 10, slug: 'e-10', status: 'publish', venueId: 18, organizerIds: [109], startUtc: NOW }),
      // Started an hour ago and still running: not upcoming.
      event({ _id: 11, slug: 'e-11', status: 'publish', venueId: 19, organizerIds: [110], startUtc: after(-HOUR), endUtc: after(HOUR) }),
    ];
    for (const doc of events) await storage.events.insertOne(doc);
    for (let id = 10; id <= 20; id++)
      await storage.venues.insertOne(venue({ _id: id, slug: `v-${id}`, name: `Venue ${id}`, status: id === 20 ? 'draft' : 'publish' }));
  });
  afterEach(async () => {
    await storage.close();
  });

  const upcoming = (statuses: readonly PostStatus[]): Filter => ({ $and: [statusFilter(statuses, NOW), { startUtc: { $gte: NOW } }] });

  it('has_events: the links of events that are not draft, pending or trash', async () => {
    const live: Filter = { status: { $in: LIVE_EVENT_STATUSES } };
    expect(numeric(await storage.events.distinct('venueId', live))).toEqual([10, 13, 14, 15, 16, 18, 19]);
    expect(numeric(await storage.events.distinct('organizerIds', live))).toEqual([100, 101, 104, 105, 106, 107, 109, 110]);
  });

  it('only_with_upcoming for anonymous callers: published (or due) events starting from now', async () => {
    expect(numeric(await storage.events.distinct('venueId', upcoming(['publish'])))).toEqual([10, 15, 18]);
    expect(numeric(await storage.events.distinct('organizerIds', upcoming(['publish'])))).toEqual([100, 101, 106, 109]);
  });

  it('only_with_upcoming for token holders: every status but trash', async () => {
    expect(numeric(await storage.events.distinct('venueId', upcoming(NON_TRASH_STATUSES)))).toEqual([10, 11, 12, 13, 15, 16, 18]);
    expect(numeric(await storage.events.distinct('organizerIds', upcoming(NON_TRASH_STATUSES)))).toEqual([100, 101, 102, 103, 104, 106, 107, 109]);
  });

  it('event=<id>: the links of one event, whatever its status', async () => {
    expect(await storage.events.distinct('organizerIds', { _id: 5 })).toEqual(expect.arrayContaining([105, 100]));
    expect(await storage.events.distinct('venueId', { _id: 2 })).toEqual([11]);
    expect(await storage.events.distinct('venueId', { _id: 9 })).toEqual([]);
  });

  it('selects the venues through $in and $nin of those ids, within the status filter', async () => {
    const linked = await storage.events.distinct('venueId', { status: { $in: LIVE_EVENT_STATUSES } });
    const listed = async (clause: Filter, statuses: readonly PostStatus[]) =>
      (
        await storage.venues.find({
          filter: { $and: [statusFilter(statuses, NOW), clause] },
          sort: [
            ['nameKey', 1],
            ['_id', 1],
          ],
        })
      ).map((d) => d._id);
    expect(await listed({ _id: { $in: linked } }, ['publish'])).toEqual([10, 13, 14, 15, 16, 18, 19]);
    // has_events=false: linked to no live event (only draft/pending/trashed ones, or none).
    expect(await listed({ _id: { $nin: linked } }, ['publish'])).toEqual([11, 12, 17]);
    expect(await listed({ _id: { $nin: linked } }, NON_TRASH_STATUSES)).toEqual([11, 12, 17, 20]);
    // An empty id list selects nothing, and its negation everything.
    expect(await listed({ _id: { $in: [] } }, ['publish'])).toEqual([]);
    expect((await listed({ _id: { $nin: [] } }, ['publish'])).length).toBe(10);
  });
});

describe.each(engineCases)('%s engine: all-words search over venues and organizers', (_name, engine) => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
    const venues = [
      venue({
        _id: 1,
        slug: 'v-1',
        name: 'Théâtre du Temple',
        address: '100, Avenue du Temple',
        city: 'Paris',
        province: 'Île-de-France',
        stateprovince: 'Île-de-France',
        country: 'France',
        zip: '75003',
        phone: '0142740000',
      }),
      venue({
        _id: 2,
        slug: 'v-2',
        name: 'London Coliseum',
        address: "St Martin's Lane",
        city: 'London',
        province: 'Greater London',
        zip: 'WC2N 4ES',
        country: 'United Kingdom',
      }),
      venue({ _id: 3, slug: 'v-3', name: 'Royal Albert Hall', address: 'Kensington Gore', city: 'London', description: 'A concert hall in South Kensington' }),
      venue({ _id: 4, slug: 'v-4', name: 'Temple Bar Hall', city: 'Dublin', country: 'Ireland', status: 'draft' }),
      venue({ _id: 5, slug: 'v-5', name: 'Austin City Hall', state: 'Texas', stateprovince: 'TX', phone: '5129742000' }),
    ];
    for (const doc of venues) await storage.venues.insertOne(doc);
    const organizers = [
      organizer({ _id: 11, slug: 'o-11', name: 'Organizer one', phone: '111111111', email: 'one@common.com', website: 'http://one.com' }),
      organizer({ _id: 12, slug: 'o-12', name: 'Organizer two', phone: '111112222', email: 'two@common.com', website: 'http://two.com' }),
      organizer({
        _id: 13,
        slug: 'o-13',
        name: 'Organizer three',
        phone: '222223333',
        email: 'three@three.com',
        website: 'http://three.com',
        description: 'Chamber concerts',
      }),
    ];
    for (const doc of organizers) await storage.organizers.insertOne(doc);
  });
  afterEach(async () => {
    await storage.close();
  });

  const venuesFound = async (query: string, statuses: readonly PostStatus[] = NON_TRASH_STATUSES) =>
    (
      await storage.venues.find({
        filter: { $and: [statusFilter(statuses, NOW), allWords(query)] },
        sort: [
          ['nameKey', 1],
          ['_id', 1],
        ],
      })
    ).map((d) => d._id);
  const organizersFound = async (query: string) =>
    (
      await storage.organizers.find({
        filter: { $and: [statusFilter(['publish'], NOW), allWords(query)] },
        sort: [
          ['nameKey', 1],
          ['_id', 1],
        ],
      })
    ).map((d) => d._id);

  it.each<[string, string, number[]]>([
    ['words of the address in any order', 'temple avenue', [1]],
    ['one word in name and address', 'temple', [4, 1]],
    ['the city', 'london', [2, 3]],
    ['the province', 'greater london', [2]],
    ['words from different fields (description and address)', 'concert kensington', [3]],
    ['a stemmed form', 'concerts', [3]],
    ['without diacritics', 'ile de france', [1]],
    ['with diacritics and hyphens', 'ÎLE-DE-FRANCE', [1]],
    ['the state', 'texas', [5]],
    ['the state/province field', 'tx', [5]],
    ['the zip code', '75003', [1]],
    ['a phone number', '5129742000', [5]],
    ['a zip code of two words', 'wc2n 4es', [2]],
    ['nothing for a word only in the country (not indexed)', 'ireland', []],
    ['nothing for a partial word', 'tem', []],
    ['nothing for a partial number', '01427', []],
    ['nothing when one word is missing', 'london dublin', []],
  ])('venues: %s ("%s")', async (_label, query, expected) => {
    expect(await venuesFound(query)).toEqual(expected);
  });

  it('venues: the search stays within the status filter', async () => {
    expect(await venuesFound('temple', ['publish'])).toEqual([1]);
    expect(await venuesFound('hall', ['publish'])).toEqual([5, 3]);
    expect(await venuesFound('hall', ['draft'])).toEqual([4]);
  });

  it('venues: pages and counts the matches only', async () => {
    const page = await storage.venues.findPage({
      filter: { $and: [statusFilter(NON_TRASH_STATUSES, NOW), allWords('hall')] },
      sort: [
        ['nameKey', 1],
        ['_id', 1],
      ],
      skip: 1,
      limit: 1,
    });
    expect(page.total).toBe(3);
    expect(page.items.map((d) => d._id)).toEqual([3]);
  });

  it.each<[string, number[]]>([
    ['organizer', [11, 13, 12]],
    ['111111111', [11]],
    ['222223333', [13]],
    ['three@three.com', [13]],
    ['common.com', [11, 12]],
    ['@common.com', [11, 12]],
    ['http://one.com', [11]],
    ['concert', [13]],
    ['1111', []],
  ])('organizers: "%s"', async (query, expected) => {
    expect(await organizersFound(query)).toEqual(expected);
  });
});
