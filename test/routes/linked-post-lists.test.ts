/**
 * GET /venues and GET /organizers: envelope, headers, paging, order and every filter (reference
 * the Venue*Archive* / Organizer*Archive* tests of the reference), with our differences:
 * order by name then id, search requiring every whole word, a missing page
 * past the end → 404. Venues and organizers share the code and the behaviour, so each case runs for
 * both, on every engine. Every test starts from an empty store.
 */
import { type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { API, EDITOR, VIEWER, type TestApp, createEventOk, insertOrganizer, insertVenue, json, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { sharedTestApp } from '../helpers/shared-app.js';
import { type OrganizerDoc, type Storage, type VenueDoc } from '../../src/storage/port.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type ErrorBody = { code: string; message: string; data: { status: number; params?: Record<string, string> | string[] } };
type Common = Partial<Pick<VenueDoc & OrganizerDoc, 'name' | 'status' | 'dateUtc' | 'description'>>;

interface Resource {
  path: 'venues' | 'organizers';
  kind: 'venue' | 'organizer';
  insert(storage: Storage, overrides?: Common): Promise<{ _id: number; slug: string }>;
  /** The fields of an event body linking these records. */
  link(ids: number[]): Body;
}

const RESOURCES: Resource[] = [
  { path: 'venues', kind: 'venue', insert: (s, o = {}) => insertVenue(s, o), link: (ids) => ({ venue: ids[0] }) },
  { path: 'organizers', kind: 'organizer', insert: (s, o = {}) => insertOrganizer(s, o), link: (ids) => ({ organizer: ids }) },
];

const cases = engines.flatMap((engine) => RESOURCES.map((resource) => ({ engine, resource, label: `${engine.name} engine: GET /${resource.path}` })));

const DAY = 86_400_000;
/** `YYYY-MM-DD HH:MM:SS` in UTC (the test app's site time zone). */
const wall = (instant: Date) => instant.toISOString().slice(0, 19).replace('T', ' ');
const inDays = (days: number) => new Date(Date.now() + days * DAY);

describe.each(cases)('$label', ({ engine, resource }) => {
  const { path, kind } = resource;
  let t: TestApp;
  const shared = sharedTestApp(engine);
  beforeEach(async () => {
    t = await shared.fresh();
  });
  afterAll(() => shared.close());

  const BASE = `http://localhost:80${API}/${path}/`;
  const list = (query = '', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `${API}/${path}${query === '' ? '' : `?${query}`}`, headers });
  const items = (response: LightMyRequestResponse) => json(response)[path] as Body[];
  const ids = (response: LightMyRequestResponse) => items(response).map((item) => item.id);
  const names = (response: LightMyRequestResponse) => items(response).map((item) => item[kind]);
  const insert = (overrides: Common = {}) => resource.insert(t.storage, overrides);
  const insertMany = async (count: number, overrides: (i: number) => Common = () => ({})) => {
    const docs = [];
    for (let i = 0; i < count; i++) docs.push(await insert(overrides(i)));
    return docs.map((d) => d._id);
  };
  /** Names that sort in creation order. */
  const ordered = (i: number): Common => ({ name: `Record ${String(i).padStart(2, '0')}` });
  const event = (links: number[], overrides: Body = {}) =>
    createEventOk(t.app, { start_date: wall(inDays(30)), end_date: wall(inDays(30.1)), ...resource.link(links), ...overrides });

  async function expectInvalid(query: string, param: string, headers: Record<string, string> = {}) {
    const response = await list(query, headers);
    expect(response.statusCode, `${query}: ${response.body}`).toBe(400);
    const body = json<ErrorBody>(response);
    expect(body.code).toBe('rest_invalid_param');
    expect(Object.keys(body.data.params as object)).toEqual([param]);
  }

  describe('envelope, headers and paging (Archive L11–L250)', () => {
    it('answers an empty store with an empty list, zero totals, and no links', async () => {
      const response = await list();
      expect(response.statusCode).toBe(200);
      const body = json(response);
      expect(body).toEqual({ [path]: [], rest_url: `${BASE}?page=1&per_page=10&status=publish`, total: 0, total_pages: 0 });
      expect(Object.keys(body)).toEqual([path, 'rest_url', 'total', 'total_pages']);
      expect(response.headers['x-tec-total']).toBe('0');
      expect(response.headers['x-tec-totalpages']).toBe('0');
      expect(response.headers.link).toBeUndefined();
    });

    it('pages ten records five at a time, with totals in the body and the headers, and next/previous links', async () => {
      const all = await insertMany(10, ordered);
      const first = await list('per_page=5');
      expect(first.statusCode).toBe(200);
      const body = json(first);
      expect(Object.keys(body)).toEqual([path, 'rest_url', 'next_rest_url', 'total', 'total_pages']);
      expect(body).toMatchObject({
        rest_url: `${BASE}?page=1&per_page=5&status=publish`,
        next_rest_url: `${BASE}?per_page=5&status=publish&page=2`,
        total: 10,
        total_pages: 2,
      });
      expect(ids(first)).toEqual(all.slice(0, 5));
      expect(first.headers['x-tec-total']).toBe('10');
      expect(first.headers['x-tec-totalpages']).toBe('2');
      expect(first.headers.link).toBe(`<${BASE}?per_page=5&status=publish&page=2>; rel="next"`);

      const second = await list('per_page=5&page=2');
      const secondBody = json(second);
      expect(Object.keys(secondBody)).toEqual([path, 'rest_url', 'previous_rest_url', 'total', 'total_pages']);
      // The previous page is page 1: its link carries no page.
      expect(secondBody).toMatchObject({
        rest_url: `${BASE}?page=2&per_page=5&status=publish`,
        previous_rest_url: `${BASE}?per_page=5&status=publish`,
        total: 10,
        total_pages: 2,
      });
      expect(ids(second)).toEqual(all.slice(5));
      expect(second.headers.link).toBe(`<${BASE}?per_page=5&status=publish>; rel="prev"`);
    });

    it('links both ways from a middle page, and to page=2 as previous of page 3', async () => {
      await insertMany(9, ordered);
      const middle = json(await list('per_page=3&page=2'));
      expect(Object.keys(middle)).toEqual([path, 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
      const last = await list('per_page=3&page=3');
      expect(json(last)).toMatchObject({ previous_rest_url: `${BASE}?per_page=3&status=publish&page=2`, total: 9, total_pages: 3 });
      expect(json(last)).not.toHaveProperty('next_rest_url');
      const middleResponse = await list('per_page=3&page=2');
      expect(middleResponse.headers.link).toBe(`<${BASE}?per_page=3&status=publish&page=3>; rel="next", <${BASE}?per_page=3&status=publish>; rel="prev"`);
    });

    it('honours per_page (L75): 4 → 3 pages; 2 with page=2 → 5 pages', async () => {
      const all = await insertMany(10, ordered);
      const four = await list('per_page=4');
      expect(items(four)).toHaveLength(4);
      expect(json(four)).toMatchObject({ total: 10, total_pages: 3 });
      const two = await list('per_page=2&page=2');
      expect(ids(two)).toEqual(all.slice(2, 4));
      expect(json(two)).toMatchObject({ total: 10, total_pages: 5 });
    });

    it('uses 10 per page by default', async () => {
      await insertMany(11, ordered);
      const response = await list();
      expect(items(response)).toHaveLength(10);
      expect(json(response)).toMatchObject({ rest_url: `${BASE}?page=1&per_page=10&status=publish`, total: 11, total_pages: 2 });
    });

    it('clamps per_page to 50 (L119) and echoes the effective value', async () => {
      await insertMany(51);
      const response = await list('per_page=100');
      expect(response.statusCode).toBe(200);
      expect(items(response)).toHaveLength(50);
      expect(json(response)).toMatchObject({ rest_url: `${BASE}?page=1&per_page=50&status=publish`, total: 51, total_pages: 2 });
    });

    it('clamps to PER_PAGE_MAX when configured, the default included', async () => {
      const small = await openTestApp(engine, { PER_PAGE_MAX: '3' });
      try {
        for (let i = 0; i < 4; i++) await resource.insert(small.storage, ordered(i));
        for (const query of ['', '?per_page=10']) {
          const response = await small.app.inject({ method: 'GET', url: `${API}/${path}${query}` });
          expect(json(response)[path]).toHaveLength(3);
          expect(json(response)).toMatchObject({ rest_url: `${BASE}?page=1&per_page=3&status=publish`, total: 4, total_pages: 2 });
        }
      } finally {
        await small.close();
      }
    });

    it(`answers a page past the end with 404 ${kind}-archive-page-not-found (L201)`, async () => {
      await insertMany(3);
      for (const query of ['per_page=3&page=2', 'page=7']) {
        const response = await list(query);
        expect(response.statusCode).toBe(404);
        expect(json(response)).toEqual({
          code: `${kind}-archive-page-not-found`,
          message: `The requested ${kind} archive page does not exist`,
          data: { status: 404 },
        });
      }
      // Page 1 is never a 404.
      t = await shared.fresh();
      expect((await list('page=1')).statusCode).toBe(200);
      expect((await list('page=2')).statusCode).toBe(404);
    });

    it.each(['page', 'per_page'])('refuses %s = foo, -1, 0, 1.5 and "foo bar" (L220, L235)', async (param) => {
      for (const value of ['foo', '-1', '0', '1.5', 'foo%20bar', '']) await expectInvalid(`${param}=${value}`, param);
    });

    it('lists items without json_ld, equal to the single read otherwise', async () => {
      const [id] = await insertMany(1);
      const [item] = items(await list());
      expect(item).not.toHaveProperty('json_ld');
      const single = json(await t.app.inject({ method: 'GET', url: `${API}/${path}/${id as number}` }));
      const { json_ld: _ld, ...rest } = single;
      expect(item).toEqual(rest);
    });

    it('builds the links from the root and host the request came in on', async () => {
      await insertMany(2);
      const response = await t.app.inject({ method: 'GET', url: `/de${API}/${path}?per_page=1`, headers: { host: 'kalender.example.de' } });
      expect(json(response)).toMatchObject({
        rest_url: `http://kalender.example.de/de${API}/${path}/?page=1&per_page=1&status=publish`,
        next_rest_url: `http://kalender.example.de/de${API}/${path}/?per_page=1&status=publish&page=2`,
      });
    });
  });

  describe('order', () => {
    it('sorts by name, case-insensitively, then by id', async () => {
      const [beta, alpha1, gamma, alpha2, alpha3] = await insertMany(5, (i) => ({ name: ['beta', 'Alpha', 'Gamma', 'alpha', 'ALPHA'][i] }));
      const response = await list();
      expect(ids(response)).toEqual([alpha1, alpha2, alpha3, beta, gamma]);
      expect(names(response)).toEqual(['Alpha', 'alpha', 'ALPHA', 'beta', 'Gamma']);
    });
  });

  describe('status (Archive L269–L401)', () => {
    async function statuses() {
      const publish = await insertMany(3, (i) => ({ name: `A published ${i}` }));
      const draft = await insertMany(3, (i) => ({ name: `B draft ${i}`, status: 'draft' }));
      const pending = await insertMany(3, (i) => ({ name: `C pending ${i}`, status: 'pending' }));
      const trash = await insertMany(1, () => ({ name: 'D trashed', status: 'trash' }));
      return { publish, draft, pending, trash };
    }

    it('shows anonymous callers only published records; token holders every status but trash', async () => {
      const s = await statuses();
      const anonymous = await list();
      expect(ids(anonymous)).toEqual(s.publish);
      expect(json(anonymous)).toMatchObject({ total: 3, total_pages: 1 });
      for (const headers of [EDITOR, VIEWER]) {
        const response = await list('', headers);
        expect(ids(response)).toEqual([...s.publish, ...s.draft, ...s.pending]);
        expect(new URL(json(response).rest_url as string).searchParams.get('status')).toBe('publish,future,draft,pending,private');
      }
    });

    it('hides drafts from anonymous callers even when they are all there is (L269)', async () => {
      await insertMany(3, () => ({ status: 'draft' }));
      const response = await list();
      expect(json(response)).toEqual({ [path]: [], rest_url: `${BASE}?page=1&per_page=10&status=publish`, total: 0, total_pages: 0 });
    });

    it('lets token holders pick statuses: one, a comma list with spaces, an array, any, trash (L308)', async () => {
      const s = await statuses();
      expect(ids(await list('status=publish', EDITOR))).toEqual(s.publish);
      expect(ids(await list('status=publish,%20draft', EDITOR))).toEqual([...s.publish, ...s.draft]);
      expect(ids(await list('status[]=publish&status[]=draft&status[]=pending', EDITOR))).toEqual([...s.publish, ...s.draft, ...s.pending]);
      expect(ids(await list('status=pending&status=draft', VIEWER))).toEqual([...s.draft, ...s.pending]);
      expect(ids(await list('status=any', EDITOR))).toEqual([...s.publish, ...s.draft, ...s.pending]);
      expect(ids(await list('status=trash', EDITOR))).toEqual(s.trash);
      expect(new URL(json(await list('status=draft,publish', EDITOR)).rest_url as string).searchParams.get('status')).toBe('draft,publish');
    });

    it('refuses unknown statuses (L354)', async () => {
      for (const value of ['foo', 'foo,%20bar', 'foo,%20bar,%20publish', '']) await expectInvalid(`status=${value}`, 'status', EDITOR);
    });

    it('lets anonymous callers ask for publish only (L380)', async () => {
      const s = await statuses();
      expect(ids(await list('status=publish'))).toEqual(s.publish);
      for (const value of ['publish,%20draft', 'draft', 'any', 'trash']) await expectInvalid(`status=${value}`, 'status');
    });

    it('counts a scheduled record whose date has passed as published, and one still ahead as future', async () => {
      const [due] = await insertMany(1, () => ({ name: 'Due', status: 'future', dateUtc: new Date(Date.now() - DAY) }));
      const [ahead] = await insertMany(1, () => ({ name: 'Ahead', status: 'future', dateUtc: inDays(10) }));
      const anonymous = await list();
      expect(ids(anonymous)).toEqual([due]);
      expect(items(anonymous)[0]?.status).toBe('publish');
      expect(ids(await list('status=future', EDITOR))).toEqual([ahead]);
      expect(ids(await list('status=publish', EDITOR))).toEqual([due]);
    });
  });

  describe('search (ArchiveSearch L10–L80; every whole word required)', () => {
    it('finds by name: a word in all three, two words in one, none for an absent or partial word', async () => {
      const [foo, baz, bar] = await insertMany(3, (i) => ({ name: `Thing ${['foo', 'baz', 'bar'][i] as string}`, description: '' }));
      const nothing = await list('search=woo');
      expect(nothing.statusCode).toBe(200);
      expect(json(nothing)).toMatchObject({ [path]: [], total: 0, total_pages: 0 });
      expect(ids(await list('search=Thing'))).toEqual([bar, baz, foo]);
      expect(ids(await list('search=Thing%20foo'))).toEqual([foo]);
      expect(ids(await list('search=THING%20FOO'))).toEqual([foo]);
      expect(ids(await list('search=foo%20thing'))).toEqual([foo]);
      expect(ids(await list('search=Thin'))).toEqual([]);
      expect(json(await list('search=Thing%20foo')).rest_url).toBe(`${BASE}?page=1&per_page=10&status=publish&search=Thing+foo`);
    });

    it('finds by description, with stemming', async () => {
      const [foo, baz] = await insertMany(2, (i) => ({ name: `Plain ${i}`, description: `Content ${['foo', 'baz'][i] as string} with concerts` }));
      expect(ids(await list('search=content'))).toEqual([foo, baz]);
      expect(ids(await list('search=content%20foo'))).toEqual([foo]);
      expect(ids(await list('search=concert'))).toEqual([foo, baz]);
    });

    it('requires every word, across fields', async () => {
      const [a] = await insertMany(2, (i) => ({ name: i === 0 ? 'Harbour' : 'Harbour side', description: i === 0 ? 'Lighthouse' : 'Beach' }));
      expect(ids(await list('search=harbour%20lighthouse'))).toEqual([a]);
      expect(ids(await list('search=harbour%20lighthouse%20beach'))).toEqual([]);
    });

    it('searches within the status filter, and pages the matches only', async () => {
      await insertMany(3, (i) => ({ name: `Jazz ${i}`, status: i === 0 ? 'draft' : 'publish' }));
      await insertMany(3, (i) => ({ name: `Rock ${i}` }));
      expect(json(await list('search=jazz'))).toMatchObject({ total: 2 });
      expect(json(await list('search=jazz', EDITOR))).toMatchObject({ total: 3 });
      const paged = await list('search=jazz&per_page=1&page=2', EDITOR);
      expect(json(paged)).toMatchObject({ total: 3, total_pages: 3 });
      expect(names(paged)).toEqual(['Jazz 1']);
    });

    it('refuses an empty search', async () => {
      await expectInvalid('search=', 'search');
    });
  });

  describe('event (ByEventArchive L10–L144)', () => {
    it('lists exactly the records linked to the given event', async () => {
      const records = await insertMany(3, ordered);
      const events = [];
      for (const id of records) events.push(await event([id]));
      for (const [i, e] of events.entries()) {
        const response = await list(`event=${e.id as number}`);
        expect(ids(response)).toEqual([records[i]]);
        expect(new URL(json(response).rest_url as string).searchParams.get('event')).toBe(String(e.id));
      }
    });

    it('lists the records of an event of any status for token holders; anonymous callers cannot name an unpublished event', async () => {
      const [id] = await insertMany(1);
      const draftEvent = await event([id as number], { status: 'draft' });
      expect(ids(await list(`event=${draftEvent.id as number}`, VIEWER))).toEqual([id]);
      await expectInvalid(`event=${draftEvent.id as number}`, 'event');
    });

    it('refuses an event id that is not an event (L52), naming event', async () => {
      const [id] = await insertMany(1);
      for (const value of ['987654', String(id), 'foo', '0', '']) await expectInvalid(`event=${value}`, 'event');
    });

    it('answers 200 and an empty list for an event without links (L63, L86)', async () => {
      const empty = await createEventOk(t.app, { title: 'No links' });
      expect(json(await list(`event=${empty.id as number}`))).toEqual({
        [path]: [],
        rest_url: `${BASE}?page=1&per_page=10&status=publish&event=${empty.id as number}`,
        total: 0,
        total_pages: 0,
      });
      await insertMany(2);
      expect(json(await list(`event=${empty.id as number}`)).total).toBe(0);
    });

    it('hides a draft record linked to the event from anonymous callers, not from token holders (L108, L131)', async () => {
      const [draft] = await insertMany(1, () => ({ status: 'draft' }));
      const e = await event([draft as number]);
      expect(ids(await list(`event=${e.id as number}`))).toEqual([]);
      expect(ids(await list(`event=${e.id as number}`, EDITOR))).toEqual([draft]);
      expect(ids(await list(`event=${e.id as number}`, VIEWER))).toEqual([draft]);
    });
  });

  describe('has_events (ByEmptyArchive L10–L91)', () => {
    it('true → linked to an event; false → linked to none', async () => {
      const [a, b, c] = await insertMany(3, ordered);
      await event([b as number]);
      for (const truthy of ['true', '1', 'yes']) expect(ids(await list(`has_events=${truthy}`)), truthy).toEqual([b]);
      for (const falsy of ['false', '0', 'no']) expect(ids(await list(`has_events=${falsy}`)), falsy).toEqual([a, c]);
      expect(new URL(json(await list('has_events=true')).rest_url as string).searchParams.get('has_events')).toBe('true');
    });

    it('answers 200 with nothing when no record is linked, or when all are and false is asked (L41, L64)', async () => {
      const records = await insertMany(2);
      expect(json(await list('has_events=true'))).toMatchObject({ [path]: [], total: 0, total_pages: 0 });
      for (const id of records) await event([id]);
      expect(json(await list('has_events=false'))).toMatchObject({ [path]: [], total: 0, total_pages: 0 });
    });

    it('does not count draft or pending events (L91), nor trashed ones; private and scheduled ones count for token holders', async () => {
      const [published, drafted, pended, trashed, privy, scheduled] = await insertMany(6, ordered);
      await event([published as number]);
      await event([drafted as number], { status: 'draft' });
      await event([pended as number], { status: 'pending' });
      const gone = await event([trashed as number]);
      expect((await t.app.inject({ method: 'DELETE', url: `${API}/events/${gone.id as number}`, headers: EDITOR })).statusCode).toBe(200);
      await event([privy as number], { status: 'private' });
      await event([scheduled as number], { date_utc: wall(inDays(5)) });
      expect(ids(await list('has_events=true', VIEWER))).toEqual([published, privy, scheduled]);
      expect(ids(await list('has_events=false', VIEWER))).toEqual([drafted, pended, trashed]);
      // Anonymous callers count only events they may read: nothing tells them that a
      // private or scheduled event takes place there.
      expect(ids(await list('has_events=true'))).toEqual([published]);
      expect(ids(await list('has_events=false'))).toEqual([drafted, pended, trashed, privy, scheduled]);
    });
  });

  describe('only_with_upcoming (ByUpcomingArchive L10–L116)', () => {
    it('true → linked to an event starting from now on; false → no filter', async () => {
      const [r1, r2, r3, r4] = await insertMany(4, ordered);
      await event([r1 as number], { start_date: wall(inDays(30)), end_date: wall(inDays(30.1)) });
      await event([r2 as number], { start_date: wall(inDays(31)), end_date: wall(inDays(31.1)) });
      await event([r3 as number], { start_date: wall(inDays(-30)), end_date: wall(inDays(-29.9)) });
      expect(ids(await list('only_with_upcoming=true'))).toEqual([r1, r2]);
      expect(ids(await list('only_with_upcoming=1'))).toEqual([r1, r2]);
      expect(ids(await list('only_with_upcoming=false'))).toEqual([r1, r2, r3, r4]);
    });

    it('answers 200 with nothing when every linked event is past, or started already (L47)', async () => {
      const [past, ongoing] = await insertMany(2, ordered);
      await event([past as number], { start_date: wall(inDays(-3)), end_date: wall(inDays(-2)) });
      await event([ongoing as number], { start_date: wall(inDays(-1)), end_date: wall(inDays(1)) });
      expect(json(await list('only_with_upcoming=true'))).toMatchObject({ [path]: [], total: 0, total_pages: 0 });
    });

    it('counts private, draft and pending upcoming events only for token holders (L77, L116)', async () => {
      const [r1, r2, r3, r4] = await insertMany(4, ordered);
      await event([r1 as number]);
      await event([r2 as number], { status: 'private' });
      await event([r3 as number], { status: 'draft' });
      await event([r4 as number], { status: 'pending' });
      expect(ids(await list('only_with_upcoming=true'))).toEqual([r1]);
      expect(ids(await list('only_with_upcoming=true', EDITOR))).toEqual([r1, r2, r3, r4]);
      expect(ids(await list('only_with_upcoming=true', VIEWER))).toEqual([r1, r2, r3, r4]);
    });

    it('does not count trashed upcoming events, even for token holders', async () => {
      const [r1] = await insertMany(1);
      const e = await event([r1 as number]);
      await t.app.inject({ method: 'DELETE', url: `${API}/events/${e.id as number}`, headers: EDITOR });
      expect(ids(await list('only_with_upcoming=true', EDITOR))).toEqual([]);
    });
  });

  describe('filters combined', () => {
    it('intersects search, event links, has_events, only_with_upcoming and status', async () => {
      const [jazzLinked, jazzDraft, jazzAlone, rockLinked] = await insertMany(4, (i) => ({
        name: ['Jazz one', 'Jazz two', 'Jazz three', 'Rock one'][i],
        status: i === 1 ? 'draft' : 'publish',
      }));
      await event([jazzLinked as number]);
      await event([jazzDraft as number]);
      await event([rockLinked as number], { start_date: wall(inDays(-5)), end_date: wall(inDays(-4)) });
      expect(ids(await list('search=jazz&has_events=true'))).toEqual([jazzLinked]);
      expect(ids(await list('search=jazz&has_events=true', EDITOR))).toEqual([jazzLinked, jazzDraft]);
      expect(ids(await list('search=jazz&has_events=false'))).toEqual([jazzAlone]);
      expect(ids(await list('has_events=true&only_with_upcoming=true&status=draft', EDITOR))).toEqual([jazzDraft]);
      expect(ids(await list('has_events=true&only_with_upcoming=false'))).toEqual([jazzLinked, rockLinked]);
      expect(ids(await list('search=rock&only_with_upcoming=true'))).toEqual([]);
    });
  });
});

/** Searches over the resource's own fields (the reference's "custom fields" cases). */
describe.each(engines)('$name engine: venue search over the address fields (VenueArchiveSearchCest L115)', (engine) => {
  let t: TestApp;
  const shared = sharedTestApp(engine);
  beforeEach(async () => {
    t = await shared.fresh();
  });
  afterAll(() => shared.close());
  const search = async (q: string) =>
    (json(await t.app.inject({ method: 'GET', url: `${API}/venues?search=${encodeURIComponent(q)}` })).venues as Body[]).map((v) => v.id);

  it('matches address, city, province, state, zip and phone; needs whole words', async () => {
    const base = { description: '', address: '', city: '', country: '', province: '', state: '', zip: '', phone: '', stateprovince: '' };
    const one = await insertVenue(t.storage, {
      ...base,
      name: 'Venue one',
      address: '10 Downing Street',
      city: 'London',
      province: 'Greater London',
      zip: '223345',
      phone: '1111111111',
      country: 'United Kingdom',
    });
    const two = await insertVenue(t.storage, {
      ...base,
      name: 'Venue two',
      address: '221b Baker Street',
      city: 'London',
      province: 'Greater London',
      zip: '223345',
      phone: '3333333',
    });
    const three = await insertVenue(t.storage, {
      ...base,
      name: 'Venue three',
      address: '100, Avenue du Temple',
      city: 'Paris',
      province: 'Ile de France',
      stateprovince: 'Ile de France',
      country: 'France',
      zip: '75003',
      phone: '1111122222',
    });
    const four = await insertVenue(t.storage, { ...base, name: 'Venue four', state: 'Texas', city: 'Austin' });

    expect(await search('london')).toEqual([one._id, two._id]);
    expect(await search('greater london')).toEqual([one._id, two._id]);
    expect(await search('3333333')).toEqual([two._id]);
    expect(await search('temple avenue')).toEqual([three._id]);
    expect(await search('france')).toEqual([three._id]);
    expect(await search('france, ile de')).toEqual([three._id]);
    expect(await search('223345')).toEqual([one._id, two._id]);
    expect(await search('texas')).toEqual([four._id]);
    expect(await search('Venue')).toEqual([four._id, one._id, three._id, two._id]);
    // Whole words only: the reference's substring match would find both phones.
    expect(await search('11111')).toEqual([]);
    expect(await search('1111111111')).toEqual([one._id]);
    // The country is not a searched field.
    expect(await search('kingdom')).toEqual([]);
    // Diacritics and case do not matter.
    expect(await search('ÎLE-DE-FRANCE')).toEqual([three._id]);
  });
});

describe.each(engines)('$name engine: organizer search over phone, e-mail and website (OrganizerArchiveSearchCest L115)', (engine) => {
  let t: TestApp;
  const shared = sharedTestApp(engine);
  beforeEach(async () => {
    t = await shared.fresh();
  });
  afterAll(() => shared.close());
  const search = async (q: string) =>
    (json(await t.app.inject({ method: 'GET', url: `${API}/organizers?search=${encodeURIComponent(q)}` })).organizers as Body[]).map((o) => o.id);

  it('matches phone, e-mail and website words', async () => {
    const one = await insertOrganizer(t.storage, {
      name: 'Organizer one',
      description: '',
      phone: '111111111',
      email: 'one@common.com',
      website: 'http://one.com',
    });
    const two = await insertOrganizer(t.storage, {
      name: 'Organizer two',
      description: '',
      phone: '111112222',
      email: 'two@common.com',
      website: 'http://two.com',
    });
    const three = await insertOrganizer(t.storage, {
      name: 'Organizer three',
      description: '',
      phone: '222223333',
      email: 'three@three.com',
      website: 'http://three.com',
    });

    expect(await search('Organizer')).toEqual([one._id, three._id, two._id]);
    expect(await search('111111111')).toEqual([one._id]);
    expect(await search('222223333')).toEqual([three._id]);
    expect(await search('three@three.com')).toEqual([three._id]);
    expect(await search('common.com')).toEqual([one._id, two._id]);
    expect(await search('@common.com')).toEqual([one._id, two._id]);
    expect(await search('http://one.com')).toEqual([one._id]);
    // Whole words only: the reference would match two phones here.
    expect(await search('1111')).toEqual([]);
  });
});
