/**
 * Event lists on every engine: realistic queries compiled by `compileEventList` (src/query/events.ts)
 * over the same seeded documents. Each engine's page and total are compared with the answer computed
 * here from the documents with plain predicates, so every engine returns identical results — and the
 * test means something with a single engine too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompileContext, type EventListInput, compileEventList } from '../../src/query/events.js';
import { NON_TRASH_STATUSES } from '../../src/query/status.js';
import { type EventDoc, type PostStatus, type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc } from '../helpers/factories.js';

const { engines } = await enginesUnderTest();
const engineCases = engines.map((engine) => [engine.name, engine] as const);

/** Monday 2026-06-15 12:00 UTC. */
const NOW = new Date('2026-06-15T12:00:00.000Z');
const CTX: CompileContext = { now: NOW, siteTimezone: 'UTC', perPageMax: 50 };
const at = (iso: string): Date => new Date(iso);
const HOUR = 3_600_000;

// Terms, venues and organizers are referenced by id only.
const MUSIC = 10;
const JAZZ = 11; // a subcategory of MUSIC
const FILM = 12;
const OUTDOOR = 20; // a tag
const HALL = 30;
const PARK = 31;
const CLUB = 32;
const FRIENDS = 40;
const SOCIETY = 41;

/** An event of the fixture: start as ISO, duration in hours, and any other field. */
function ev(id: number, start: string, hours: number, overrides: Partial<EventDoc> = {}): EventDoc {
  const startUtc = at(start);
  return makeEventDoc({
    _id: id,
    slug: `event-${id}`,
    title: `Evening ${id}`,
    description: '<p>A night out in town.</p>',
    excerpt: 'A night out',
    startUtc,
    endUtc: new Date(startUtc.getTime() + hours * HOUR),
    dateUtc: at('2026-05-01T10:00:00Z'),
    modifiedUtc: at('2026-05-01T10:00:00Z'),
    ...overrides,
  });
}

const DOCS: EventDoc[] = [
  // Before the default window (which starts 2026-06-14 00:00 UTC).
  ev(1, '2026-06-13T23:59:00Z', 2, { title: 'Jazz night before', categoryIds: [JAZZ], venueId: HALL }),
  ev(2, '2026-06-12T10:00:00Z', 96, { title: 'Long festival', categoryIds: [MUSIC], tagIds: [OUTDOOR], venueId: PARK }), // still running
  ev(3, '2025-01-10T18:00:00Z', 3, { title: 'Jazz concerts of last year', categoryIds: [JAZZ] }),
  // Inside the default window.
  ev(4, '2026-06-14T00:00:00Z', 1, { title: 'Midnight jazz', categoryIds: [JAZZ], venueId: CLUB, organizerIds: [FRIENDS] }),
  ev(5, '2026-06-14T20:00:00Z', 2, { title: 'Rock concert', categoryIds: [MUSIC], venueId: HALL, featured: true }),
  ev(6, '2026-06-16T19:00:00Z', 3, { title: 'Classical evening', categoryIds: [MUSIC], venueId: HALL, organizerIds: [SOCIETY], ticketed: true }),
  ev(7, '2026-06-16T19:00:00Z', 2, {
    title: 'Jazz concerts in the park',
    categoryIds: [JAZZ],
    tagIds: [OUTDOOR],
    venueId: PARK,
    organizerIds: [FRIENDS, SOCIETY],
    featured: true,
  }),
  ev(8, '2026-06-16T19:00:00Z', 2, { title: 'Film club', categoryIds: [FILM], venueId: CLUB }),
  ev(9, '2026-06-20T10:00:00Z', 2, { title: 'Open air cinema', categoryIds: [FILM], tagIds: [OUTDOOR], venueId: PARK, featured: true }),
  ev(10, '2026-06-25T18:00:00Z', 4, { title: 'Jazz jam', status: 'draft', categoryIds: [JAZZ], venueId: CLUB }),
  ev(11, '2026-06-26T18:00:00Z', 2, { title: 'Pending premiere', status: 'pending', categoryIds: [FILM] }),
  ev(12, '2026-06-27T18:00:00Z', 2, { title: 'Members only', status: 'private', venueId: HALL }),
  ev(13, '2026-06-28T18:00:00Z', 2, { title: 'Cancelled concert', status: 'trash', categoryIds: [MUSIC], venueId: HALL }),
  // Scheduled: one whose publication date has passed (published for readers), one still to come.
  ev(14, '2026-06-29T18:00:00Z', 2, { title: 'Scheduled jazz', status: 'future', dateUtc: at('2026-06-01T00:00:00Z'), categoryIds: [JAZZ] }),
  ev(15, '2026-06-30T18:00:00Z', 2, { title: 'Announced concert', status: 'future', dateUtc: at('2026-07-01T00:00:00Z'), categoryIds: [MUSIC] }),
  // Hidden from listings: never listed.
  ev(16, '2026-07-01T18:00:00Z', 2, { title: 'Secret jazz', hideFromListings: true, categoryIds: [JAZZ], venueId: CLUB, featured: true }),
  // A multi-day event across the relative bounds, and far-future ones.
  ev(17, '2026-06-15T08:00:00Z', 72, { title: 'Summer school', categoryIds: [MUSIC], organizerIds: [SOCIETY] }),
  ev(18, '2028-06-14T10:00:00Z', 2, { title: 'Jazz in two years', categoryIds: [JAZZ] }),
  ev(19, '2028-06-16T11:00:00Z', 2, { title: 'Just beyond the window' }), // the day after the window's last day
  ev(20, '2026-07-10T09:00:00Z', 8, {
    title: 'Concert marathon',
    categoryIds: [MUSIC],
    tagIds: [OUTDOOR],
    venueId: PARK,
    ticketed: true,
    modifiedUtc: at('2026-06-10T00:00:00Z'),
  }),
  ev(21, '2026-06-16T19:00:00Z', 1, { title: 'Late addition', dateUtc: at('2026-06-02T00:00:00Z'), modifiedUtc: at('2026-06-11T00:00:00Z') }),
  // Children of event 6 (post_parent).
  ev(22, '2026-06-18T18:00:00Z', 2, { title: 'Classical evening, part two', postParent: 6 }),
  ev(23, '2026-06-19T18:00:00Z', 2, { title: 'Classical evening, part three', postParent: 6, status: 'draft' }),
];

// ---------------------------------------------------------------------------------------------
// The expected answers, from the documents
// ---------------------------------------------------------------------------------------------

/** The status a reader sees at NOW (a scheduled post whose date has passed is published). */
function readerStatus(d: EventDoc): PostStatus {
  return d.status === 'future' && d.dateUtc.getTime() <= NOW.getTime() ? 'publish' : d.status;
}

const ms = (iso: string) => at(iso).getTime();
const DEFAULT_START = ms('2026-06-14T00:00:00Z');
// 23:59:59 of the day 24 months ahead (UTC site).
const DEFAULT_END = ms('2028-06-15T23:59:59Z');

type Predicate = (d: EventDoc) => boolean;
const inDefaultWindow: Predicate = (d) => d.startUtc.getTime() >= DEFAULT_START && d.endUtc.getTime() <= DEFAULT_END;
const withStatus =
  (...statuses: readonly PostStatus[]): Predicate =>
  (d) =>
    statuses.includes(readerStatus(d));
const published = withStatus('publish');
/** Whole words of the title, description or excerpt (the fixture has no other forms of them). */
const mentions =
  (...words: string[]): Predicate =>
  (d) =>
    words.every((w) => new RegExp(`\\b${w}`, 'i').test(`${d.title} ${d.description} ${d.excerpt}`));
const all =
  (...predicates: Predicate[]): Predicate =>
  (d) =>
    !d.hideFromListings && predicates.every((p) => p(d));

type SortField = 'startUtc' | 'endUtc' | 'dateUtc' | 'modifiedUtc' | '_id';

function expected(predicate: Predicate, options: { sort?: SortField; dir?: 1 | -1; page?: number; perPage?: number } = {}) {
  const { sort = 'startUtc', dir = 1, page = 1, perPage = 10 } = options;
  const value = (d: EventDoc) => (sort === '_id' ? d._id : d[sort].getTime());
  const matching = DOCS.filter(predicate).sort((a, b) => dir * (value(a) - value(b) || a._id - b._id));
  return { ids: matching.slice((page - 1) * perPage, page * perPage).map((d) => d._id), total: matching.length };
}

// ---------------------------------------------------------------------------------------------
// The cases
// ---------------------------------------------------------------------------------------------

type Case = [label: string, input: Partial<EventListInput>, predicate: Predicate, options?: Parameters<typeof expected>[1]];

const CASES: Case[] = [
  ['the default window, published only', {}, all(published, inDefaultWindow)],
  ['the default window, page 2 of 3 per page', { page: 2, perPage: 3 }, all(published, inDefaultWindow), { page: 2, perPage: 3 }],
  ['the default window, last page', { page: 3, perPage: 3 }, all(published, inDefaultWindow), { page: 3, perPage: 3 }],
  ['the default window, per_page clamped to 50', { perPage: 500 }, all(published, inDefaultWindow), { perPage: 50 }],
  [
    'a date window (inclusive days)',
    { dates: { start_date: '2026-06-16 20:00', end_date: '2026-06-20 09:00' } },
    all(published, (d) => d.startUtc.getTime() >= ms('2026-06-16T00:00:00Z') && d.endUtc.getTime() <= ms('2026-06-20T23:59:59Z')),
  ],
  [
    'a date window (strict)',
    { dates: { start_date: '2026-06-16 19:00:00', end_date: '2026-06-16 21:30:00' }, strictDates: 'true' },
    all(published, (d) => d.startUtc.getTime() >= ms('2026-06-16T19:00:00Z') && d.endUtc.getTime() <= ms('2026-06-16T21:30:00Z')),
  ],
  [
    'a window in the past, explicit',
    { dates: { start_date: '2025-01-01', end_date: '2025-12-31' } },
    all(published, (d) => d.startUtc.getTime() >= ms('2025-01-01T00:00:00Z') && d.endUtc.getTime() <= ms('2025-12-31T23:59:59Z')),
  ],
  [
    'relative: ends_after and starts_before (spanning events included, no default window)',
    { dates: { ends_after: '2026-06-16', starts_before: '2026-06-16' } },
    all(published, (d) => d.endUtc.getTime() > ms('2026-06-16T23:59:59Z') && d.startUtc.getTime() < ms('2026-06-16T23:59:59Z')),
  ],
  [
    'relative: starts_after only reaches past the default end',
    { dates: { starts_after: '2026-07-01' } },
    all(published, (d) => d.startUtc.getTime() > ms('2026-07-01T23:59:59Z')),
  ],
  [
    'a category (its subcategory expanded)',
    { categoryIds: [MUSIC, JAZZ] },
    all(published, inDefaultWindow, (d) => d.categoryIds.some((c) => c === MUSIC || c === JAZZ)),
  ],
  ['a subcategory', { categoryIds: [JAZZ] }, all(published, inDefaultWindow, (d) => d.categoryIds.includes(JAZZ))],
  [
    'a category and a tag',
    { categoryIds: [FILM], tagIds: [OUTDOOR] },
    all(published, inDefaultWindow, (d) => d.categoryIds.includes(FILM) && d.tagIds.includes(OUTDOOR)),
  ],
  ['one venue', { venueIds: [HALL] }, all(published, inDefaultWindow, (d) => d.venueId === HALL)],
  ['two venues', { venueIds: [PARK, CLUB] }, all(published, inDefaultWindow, (d) => d.venueId === PARK || d.venueId === CLUB)],
  [
    'two venues, every status but trash',
    { venueIds: [HALL, CLUB], statuses: [...NON_TRASH_STATUSES] },
    all(withStatus(...NON_TRASH_STATUSES), inDefaultWindow, (d) => d.venueId === HALL || d.venueId === CLUB),
  ],
  ['an organizer', { organizerIds: [SOCIETY] }, all(published, inDefaultWindow, (d) => d.organizerIds.includes(SOCIETY))],
  ['two organizers', { organizerIds: [FRIENDS, SOCIETY] }, all(published, inDefaultWindow, (d) => d.organizerIds.some((o) => o === FRIENDS || o === SOCIETY))],
  ['search: one word', { search: 'jazz' }, all(published, inDefaultWindow, mentions('jazz'))],
  ['search: a stemmed plural', { search: 'concerts' }, all(published, inDefaultWindow, mentions('concert'))],
  ['search: two words', { search: 'Jazz PARK' }, all(published, inDefaultWindow, mentions('jazz', 'park'))],
  [
    'search: with a date window reaching into the past',
    { search: 'jazz', dates: { start_date: '2025-01-01' } },
    all(published, (d) => d.startUtc.getTime() >= ms('2025-01-01T00:00:00Z') && d.endUtc.getTime() <= DEFAULT_END, mentions('jazz')),
  ],
  [
    'search: editors see drafts too',
    { search: 'jazz', statuses: [...NON_TRASH_STATUSES] },
    all(withStatus(...NON_TRASH_STATUSES), inDefaultWindow, mentions('jazz')),
  ],
  [
    'include: dates ignored, visibility kept, hidden never',
    { include: [3, 2, 10, 16, 19, 5, 999] },
    all(published, (d) => [3, 2, 10, 16, 19, 5].includes(d._id)),
  ],
  [
    'include with every status but trash',
    { include: [3, 10, 11, 13, 16], statuses: [...NON_TRASH_STATUSES] },
    all(withStatus(...NON_TRASH_STATUSES), (d) => [3, 10, 11, 13, 16].includes(d._id)),
  ],
  ['status publish and draft', { statuses: ['publish', 'draft'] }, all(withStatus('publish', 'draft'), inDefaultWindow)],
  ['status future (still scheduled)', { statuses: ['future'] }, all(withStatus('future'), inDefaultWindow)],
  ['status pending and private', { statuses: ['pending', 'private'] }, all(withStatus('pending', 'private'), inDefaultWindow)],
  ['status trash', { statuses: ['trash'] }, all(withStatus('trash'), inDefaultWindow)],
  ['every status but trash', { statuses: [...NON_TRASH_STATUSES] }, all(withStatus(...NON_TRASH_STATUSES), inDefaultWindow)],
  ['featured', { featured: true }, all(published, inDefaultWindow, (d) => d.featured)],
  ['not featured', { featured: false }, all(published, inDefaultWindow, (d) => !d.featured)],
  ['ticketed', { ticketed: true }, all(published, inDefaultWindow, (d) => d.ticketed)],
  ['post_parent', { postParent: 6 }, all(published, inDefaultWindow, (d) => d.postParent === 6)],
  [
    'category, featured and search together',
    { categoryIds: [MUSIC, JAZZ], featured: true, search: 'concert' },
    all(
      published,
      inDefaultWindow,
      (d) => d.categoryIds.some((c) => c === MUSIC || c === JAZZ),
      (d) => d.featured,
      mentions('concert'),
    ),
  ],
  ['orderby end_date', { orderBy: 'end_date' }, all(published, inDefaultWindow), { sort: 'endUtc' }],
  ['orderby end_date desc', { orderBy: 'end_date', order: -1 }, all(published, inDefaultWindow), { sort: 'endUtc', dir: -1 }],
  ['order desc (start, then id descending)', { order: -1 }, all(published, inDefaultWindow), { dir: -1 }],
  ['orderby date', { orderBy: 'date' }, all(published, inDefaultWindow), { sort: 'dateUtc' }],
  [
    'orderby modified desc, page 2',
    { orderBy: 'modified', order: -1, page: 2, perPage: 4 },
    all(published, inDefaultWindow),
    { sort: 'modifiedUtc', dir: -1, page: 2, perPage: 4 },
  ],
  ['orderby id desc', { orderBy: 'id', order: -1 }, all(published, inDefaultWindow), { sort: '_id', dir: -1 }],
  ['a page past the end', { page: 5, perPage: 5 }, all(published, inDefaultWindow), { page: 5, perPage: 5 }],
];

describe('the fixture', () => {
  it('makes the cases meaningful: most of them match several events, and their answers differ', () => {
    const sizes = CASES.map(([, , predicate, options]) => expected(predicate, options).total);
    expect(sizes.filter((n) => n >= 2).length).toBeGreaterThan(CASES.length * 0.7);
    expect(new Set(sizes).size).toBeGreaterThan(5);
  });
});

describe.each(engineCases)('%s engine: compiled event lists', (_name, engine) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await engine.open();
    for (const doc of DOCS) await storage.events.insertOne(doc);
  });
  afterAll(async () => {
    await storage?.close();
  });

  it.each(CASES)('%s', async (_label, overrides, predicate, options) => {
    const input: EventListInput = { dates: {}, statuses: ['publish'], ...overrides };
    const compiled = compileEventList(input, CTX);
    expect(compiled.invalidDates).toEqual([]);
    const page = await storage.events.findPage(compiled.query);
    const want = expected(predicate, options);
    expect({ ids: page.items.map((d) => d._id), total: page.total }).toEqual(want);
    expect(await storage.events.count(compiled.query.filter)).toBe(want.total);
  });

  it('returns the stored documents whole', async () => {
    const compiled = compileEventList({ dates: {}, statuses: ['publish'], include: [7] }, CTX);
    const page = await storage.events.findPage(compiled.query);
    expect(page.items).toEqual([DOCS.find((d) => d._id === 7)]);
  });
});
