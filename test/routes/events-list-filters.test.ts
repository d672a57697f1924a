/**
 * GET /events filters over HTTP: search,
 * categories and tags, venue and organizer, featured, status, include, post_parent and ticketed —
 * the reference's EventArchiveCest (search, status), EventByCategoryArchiveCest (+ Tag),
 * EventByFeaturedStateArchiveCest, EventByMultipleOrganizersArchiveCest / …VenuesArchiveCest,
 * EventByOrganizerArchiveCest (+ Venue), EventByParentArchiveCest and EventByPostIDArchiveCest
 * with our differences.
 *
 * Every test opens its own app on a fresh store: a list sees every event of the store.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, VIEWER, createEventOk, insertCategory, insertOrganizer, insertTag, insertVenue, json } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { sharedTestApp } from '../helpers/shared-app.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type ListBody = {
  events: Body[];
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
  total: number;
  total_pages: number;
};
type ErrorBody = { code: string; message: string; data: { status: number; params?: Record<string, string> } };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function utcWall(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

describe.each(engines)('$name engine: GET /events filters', (engine) => {
  let t: TestApp;
  const shared = sharedTestApp(engine);
  beforeEach(async () => {
    t = await shared.fresh();
  });
  afterAll(() => shared.close());

  const list = (query = '', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `${API}/events${query === '' ? '' : `?${query}`}`, headers });
  const listOk = async (query = '', headers: Record<string, string> = {}): Promise<ListBody> => {
    const response = await list(query, headers);
    expect(response.statusCode, `${query}: ${response.body}`).toBe(200);
    return json<ListBody>(response);
  };
  const idsOf = async (query = '', headers: Record<string, string> = {}): Promise<number[]> => (await listOk(query, headers)).events.map((e) => e.id as number);
  const expectInvalid = async (query: string, param: string, headers: Record<string, string> = {}) => {
    const response = await list(query, headers);
    expect(response.statusCode, `${query}: ${response.body}`).toBe(400);
    const body = json<ErrorBody>(response);
    expect(body.code).toBe('rest_invalid_param');
    expect(Object.keys(body.data.params ?? {})).toContain(param);
    return body;
  };
  const expectEmpty = async (query: string, headers: Record<string, string> = {}) => {
    const response = await list(query, headers);
    expect(response.statusCode, response.body).toBe(200);
    const body = json<ListBody>(response);
    expect(body.events).toEqual([]);
    expect([body.total, body.total_pages]).toEqual([0, 0]);
    expect(body.next_rest_url).toBeUndefined();
    expect(body.previous_rest_url).toBeUndefined();
    expect([response.headers['x-tec-total'], response.headers['x-tec-totalpages']]).toEqual(['0', '0']);
  };

  let startOffset = 0;
  /**
   * Creates an upcoming event (as the editor) and returns its id. Each starts one minute after the
   * previous one, so the list order (by start) is the creation order.
   */
  const add = async (overrides: Record<string, unknown> = {}): Promise<number> => {
    startOffset += 60_000;
    const start = Date.now() + DAY + startOffset;
    const body = await createEventOk(t.app, { start_date: utcWall(start), end_date: utcWall(start + 2 * HOUR), ...overrides });
    return body.id as number;
  };
  const addMany = async (n: number, overrides: Record<string, unknown> = {}): Promise<number[]> => {
    const created: number[] = [];
    for (let i = 0; i < n; i += 1) created.push(await add(overrides));
    return created;
  };

  describe('search (EventArchiveCest L286)', () => {
    it('matches every word: foo → 10, bar → 10, "foo bar" → 5', async () => {
      const foo = await addMany(5, { title: 'foo' });
      const fooBar = await addMany(5, { title: 'foo bar' });
      const bar = await addMany(5, { title: 'bar' });
      const fooResult = await listOk('search=foo&per_page=50');
      expect(fooResult.total).toBe(10);
      expect(fooResult.events.map((e) => e.id)).toEqual([...foo, ...fooBar]);
      expect((await listOk('search=bar&per_page=50')).events.map((e) => e.id)).toEqual([...fooBar, ...bar]);
      const both = await listOk(`search=${encodeURIComponent('foo bar')}`);
      expect(both.events.map((e) => e.id)).toEqual(fooBar);
      expect(Object.fromEntries(new URL(both.rest_url).searchParams).search).toBe('foo bar');
    });

    it('is stemmed and case-insensitive: "concerts" finds "Concert"', async () => {
      const concert = await add({ title: 'Concert in the park' });
      await add({ title: 'Poetry reading' });
      expect(await idsOf('search=concerts')).toEqual([concert]);
      expect(await idsOf('search=CONCERT')).toEqual([concert]);
      expect(await idsOf('search=concerting')).toEqual([concert]);
    });

    it('looks in the title, the description and the excerpt, not elsewhere; partial words do not match', async () => {
      const inTitle = await add({ title: 'Harbour lights' });
      const inDescription = await add({ title: 'Evening one', description: '<p>Lights over the harbour</p>' });
      const inExcerpt = await add({ title: 'Evening two', excerpt: 'harbour walk' });
      await add({ title: 'Evening three', slug: 'harbour-slug' });
      expect(await idsOf('search=harbour')).toEqual([inTitle, inDescription, inExcerpt]);
      expect(await idsOf('search=harb')).toEqual([]);
      expect(await idsOf(`search=${encodeURIComponent('harbour lights')}`)).toEqual([inTitle, inDescription]);
    });

    it('combines with the other filters and pages', async () => {
      const featured = await addMany(3, { title: 'Jazz night', featured: true });
      await addMany(2, { title: 'Jazz night' });
      await add({ title: 'Rock night', featured: true });
      const body = await listOk('search=jazz&featured=true&per_page=2&page=2');
      expect(body.events.map((e) => e.id)).toEqual([featured[2]]);
      expect([body.total, body.total_pages]).toEqual([3, 2]);
    });

    it('answers no match with an empty list; refuses an empty search', async () => {
      await add({ title: 'foo' });
      await expectEmpty('search=zoot');
      await expectInvalid('search=', 'search');
    });
  });

  describe('categories (EventByCategoryArchiveCest)', () => {
    it('refuses a category that does not exist with 400', async () => {
      await expectInvalid('categories[]=cat1', 'categories');
      await expectInvalid('categories=2389', 'categories');
      const cat = await insertCategory(t.storage, { name: 'Cat1', nameKey: 'cat1', slug: 'cat1' });
      await expectInvalid(`categories=${cat._id},nope`, 'categories');
    });

    it('refuses an empty list of categories or tags (the list must not be empty)', async () => {
      await insertCategory(t.storage, { name: 'Cat1', nameKey: 'cat1', slug: 'cat1' });
      await insertTag(t.storage, { name: 'Tag1', nameKey: 'tag1', slug: 'tag1' });
      await add();
      await expectInvalid('categories=', 'categories');
      await expectInvalid(`categories=${encodeURIComponent(' , ')}`, 'categories');
      await expectInvalid('tags=', 'tags');
    });

    it('answers an existing category without events with an empty 200', async () => {
      await insertCategory(t.storage, { name: 'Cat1', nameKey: 'cat1', slug: 'cat1' });
      await addMany(2);
      await expectEmpty('categories[]=cat1');
    });

    it('returns the events of the category (3 of 6) and pages them (4 of 8, per_page 3, page 2 → 1)', async () => {
      const cat = await insertCategory(t.storage, { name: 'Cat1', nameKey: 'cat1', slug: 'cat1' });
      const other = await insertCategory(t.storage, { name: 'Other', nameKey: 'other', slug: 'other' });
      const inCat = await addMany(4, { categories: [cat._id] });
      await addMany(4, { categories: [other._id] });
      await addMany(2);
      expect(await idsOf(`categories=${cat._id}`)).toEqual(inCat);
      const page2 = await listOk(`categories=${cat._id}&per_page=3&page=2`);
      expect(page2.events.map((e) => e.id)).toEqual([inCat[3]]);
      expect([page2.total, page2.total_pages]).toEqual([4, 2]);
    });

    it('ORs several categories, in every list encoding', async () => {
      const cat1 = await insertCategory(t.storage, { name: 'Cat One', nameKey: 'cat one', slug: 'cat1' });
      const cat2 = await insertCategory(t.storage, { name: 'Cat Two', nameKey: 'cat two', slug: 'cat2' });
      const cat3 = await insertCategory(t.storage, { name: 'Cat Three', nameKey: 'cat three', slug: 'cat3' });
      const a = await add({ categories: [cat1._id] });
      const b = await add({ categories: [cat2._id] });
      await add({ categories: [cat3._id] });
      const c = await add({ categories: [cat1._id, cat2._id] });
      const d = await add({ categories: [cat2._id, cat3._id] });
      await add();
      const expected = [a, b, c, d];
      for (const query of [
        `categories=${cat1._id},${cat2._id}`,
        `categories=${encodeURIComponent(`${cat1._id} , ${cat2._id}`)}`,
        `categories[]=${cat1._id}&categories[]=${cat2._id}`,
        `categories[0]=${cat1._id}&categories[1]=${cat2._id}`,
        `categories[1]=${cat2._id}&categories[0]=${cat1._id}`,
        `categories=${cat1._id}&categories=${cat2._id}`,
        'categories=cat1,cat2',
        `categories=${encodeURIComponent('Cat One,cat two')}`,
        `categories=cat1,${cat2._id}`,
      ]) {
        expect(await idsOf(query), query).toEqual(expected);
      }
    });

    it('finds a category by slug and by name, and echoes its id', async () => {
      const cat = await insertCategory(t.storage, { name: 'Live Music', nameKey: 'live music', slug: 'live' });
      const e = await add({ categories: [cat._id] });
      await add();
      expect(await idsOf('categories=live')).toEqual([e]);
      const byName = await listOk(`categories=${encodeURIComponent('Live Music')}`);
      expect(byName.events.map((x) => x.id)).toEqual([e]);
      expect(new URL(byName.rest_url).searchParams.get('categories')).toBe(String(cat._id));
    });

    it('matches the events of subcategories when a parent category is asked for', async () => {
      const music = await insertCategory(t.storage, { name: 'Music', nameKey: 'music', slug: 'music' });
      const jazz = await insertCategory(t.storage, { name: 'Jazz', nameKey: 'jazz', slug: 'jazz', parent: music._id });
      const bebop = await insertCategory(t.storage, { name: 'Bebop', nameKey: 'bebop', slug: 'bebop', parent: jazz._id });
      const film = await insertCategory(t.storage, { name: 'Film', nameKey: 'film', slug: 'film' });
      const inMusic = await add({ categories: [music._id] });
      const inJazz = await add({ categories: [jazz._id] });
      const inBebop = await add({ categories: [bebop._id] });
      await add({ categories: [film._id] });
      expect(await idsOf('categories=music')).toEqual([inMusic, inJazz, inBebop]);
      expect(await idsOf('categories=jazz')).toEqual([inJazz, inBebop]);
      expect(await idsOf('categories=bebop')).toEqual([inBebop]);
    });

    it('combines categories AND tags', async () => {
      const cat = await insertCategory(t.storage, { name: 'Cat', nameKey: 'cat', slug: 'cat' });
      const tag = await insertTag(t.storage, { name: 'Tag', nameKey: 'tag', slug: 'tag' });
      const both = await add({ categories: [cat._id], tags: [tag._id] });
      await add({ categories: [cat._id] });
      await add({ tags: [tag._id] });
      expect(await idsOf('categories=cat&tags=tag')).toEqual([both]);
    });

    it('only lists published events of a category for anonymous callers', async () => {
      const cat = await insertCategory(t.storage, { name: 'Cat', nameKey: 'cat', slug: 'cat' });
      const published = await add({ categories: [cat._id] });
      const draft = await add({ categories: [cat._id], status: 'draft' });
      expect(await idsOf('categories=cat')).toEqual([published]);
      expect(await idsOf('categories=cat', EDITOR)).toEqual([published, draft]);
    });
  });

  describe('tags (EventByTagArchiveCest)', () => {
    it('refuses an unknown tag; answers an unused tag with an empty 200', async () => {
      await expectInvalid('tags[]=tag1', 'tags');
      await insertTag(t.storage, { name: 'Tag1', nameKey: 'tag1', slug: 'tag1' });
      await add();
      await expectEmpty('tags[]=tag1');
    });

    it('returns the events of a tag, ORs several tags, by id, slug or name', async () => {
      const tag1 = await insertTag(t.storage, { name: 'Tag One', nameKey: 'tag one', slug: 'tag1' });
      const tag2 = await insertTag(t.storage, { name: 'Tag Two', nameKey: 'tag two', slug: 'tag2' });
      const a = await add({ tags: [tag1._id] });
      const b = await add({ tags: [tag2._id] });
      const c = await add({ tags: [tag1._id, tag2._id] });
      await add();
      expect(await idsOf(`tags=${tag1._id}`)).toEqual([a, c]);
      expect(await idsOf('tags=tag2')).toEqual([b, c]);
      expect(await idsOf(`tags=${encodeURIComponent('Tag One')}`)).toEqual([a, c]);
      expect(await idsOf(`tags=${tag1._id},${tag2._id}`)).toEqual([a, b, c]);
      expect(await idsOf(`tags[]=tag1&tags[]=tag2`)).toEqual([a, b, c]);
      expect(await idsOf(`tags[0]=tag1&tags[1]=tag2`)).toEqual([a, b, c]);
      expect(await idsOf(`tags=tag1&tags=tag2`)).toEqual([a, b, c]);
      const paged = await listOk(`tags=tag1,tag2&per_page=2&page=2`);
      expect(paged.events.map((e) => e.id)).toEqual([c]);
    });
  });

  describe.each([
    ['venue', insertVenue],
    ['organizer', insertOrganizer],
  ] as const)('%s (EventBy…ArchiveCest, EventByMultiple…ArchiveCest)', (param, insert) => {
    const link = (id: number | number[]) => (param === 'venue' ? { venue: Array.isArray(id) ? id[0] : id } : { organizer: Array.isArray(id) ? id : [id] });

    it(`refuses a non-numeric or unknown ${param} with 400`, async () => {
      await expectInvalid(`${param}=foo`, param);
      await expectInvalid(`${param}=23`, param);
      const record = await insert(t.storage);
      await expectInvalid(`${param}=${record._id},foo`, param);
      await expectInvalid(`${param}=${record._id},99999`, param);
      await expectInvalid(`${param}=`, param);
    });

    it(`answers an existing ${param} without events with an empty 200`, async () => {
      const record = await insert(t.storage);
      await add();
      await expectEmpty(`${param}=${record._id}`);
    });

    it(`returns the events linked to a ${param}; drafts only for token holders`, async () => {
      const record = await insert(t.storage);
      const published = await addMany(3, link(record._id));
      await add();
      expect(await idsOf(`${param}=${record._id}`)).toEqual(published);

      const other = await insert(t.storage);
      const drafts = await addMany(3, { ...link(other._id), status: 'draft' });
      await expectEmpty(`${param}=${other._id}`);
      expect(await idsOf(`${param}=${other._id}`, EDITOR)).toEqual(drafts);
      expect(await idsOf(`${param}=${other._id}`, VIEWER)).toEqual(drafts);
    });

    it(`ORs several ${param}s: [1] → 3, [1,2] → 6, [1,2,3] → 9, plus an unused one → 9`, async () => {
      const [r1, r2, r3, r4] = [await insert(t.storage), await insert(t.storage), await insert(t.storage), await insert(t.storage)];
      const e1 = await addMany(3, link(r1._id));
      const e2 = await addMany(3, link(r2._id));
      const e3 = await addMany(3, link(r3._id));
      await addMany(3);
      expect(await idsOf(`${param}[]=${r1._id}`)).toEqual(e1);
      expect(await idsOf(`${param}[]=${r1._id}&${param}[]=${r2._id}`)).toEqual([...e1, ...e2]);
      expect(await idsOf(`${param}=${r1._id},${r2._id},${r3._id}`)).toEqual([...e1, ...e2, ...e3]);
      expect(await idsOf(`${param}=${r1._id},${r2._id},${r3._id},${r4._id}`)).toEqual([...e1, ...e2, ...e3]);
      expect(await idsOf(`${param}=${r1._id}&${param}=${r3._id}`)).toEqual([...e1, ...e3]);
      const echoed = new URL((await listOk(`${param}[0]=${r2._id}&${param}[1]=${r1._id}`)).rest_url).searchParams.get(param);
      expect(echoed).toBe(`${r2._id},${r1._id}`);
    });
  });

  describe('organizer: events with several organizers (EventByOrganizerArchiveCest L108)', () => {
    it('OR logic: 3 + 3 + 3 (both) → 9', async () => {
      const o1 = await insertOrganizer(t.storage);
      const o2 = await insertOrganizer(t.storage);
      const only1 = await addMany(3, { organizer: [o1._id] });
      const only2 = await addMany(3, { organizer: [o2._id] });
      const both = await addMany(3, { organizer: [o1._id, o2._id] });
      expect(await idsOf(`organizer=${o1._id},${o2._id}`)).toEqual([...only1, ...only2, ...both]);
      expect(await idsOf(`organizer=${o2._id}`)).toEqual([...only2, ...both]);
    });
  });

  describe('featured (EventByFeaturedStateArchiveCest)', () => {
    it('answers featured=true with none featured with an empty 200', async () => {
      await addMany(3);
      await expectEmpty('featured=true');
    });

    it('selects featured (true) or not featured (false) events', async () => {
      const featured = await addMany(3, { featured: true });
      const plain = await addMany(3);
      expect(await idsOf('featured=true')).toEqual(featured);
      expect(await idsOf('featured=1')).toEqual(featured);
      expect(await idsOf('featured=false')).toEqual(plain);
      expect(await idsOf('featured=0')).toEqual(plain);
      expect(await idsOf('')).toEqual([...featured, ...plain]);
    });

    it('shows featured drafts only to token holders (published then drafts, in creation order)', async () => {
      const published = await addMany(3, { featured: true });
      const drafts = await addMany(3, { featured: true, status: 'draft' });
      expect(await idsOf('featured=true')).toEqual(published);
      expect(await idsOf('featured=true', EDITOR)).toEqual([...published, ...drafts]);
      expect(await idsOf('', EDITOR)).toEqual([...published, ...drafts]);
      expect(await idsOf('')).toEqual(published);
    });

    it.each(['yes', 'foo', '', '2'])('refuses featured=%j with 400', async (value) => {
      await expectInvalid(`featured=${value}`, 'featured');
    });
  });

  describe('status (EventArchiveCest L339-L423)', () => {
    /** 3 published, 3 drafts, 3 pending — interleaved, so the order is by start, not by status. */
    const addByStatus = async () => {
      const byStatus: Record<'publish' | 'draft' | 'pending', number[]> = { publish: [], draft: [], pending: [] };
      for (let i = 0; i < 3; i += 1) {
        for (const status of ['publish', 'draft', 'pending'] as const) byStatus[status].push(await add({ status }));
      }
      return byStatus;
    };
    const sorted = (...lists: number[][]) => lists.flat().sort((a, b) => a - b);

    it('editor: publish → the published; "publish, draft" → 6; [publish, draft, pending] → 9', async () => {
      const s = await addByStatus();
      expect(await idsOf('status=publish', EDITOR)).toEqual(s.publish);
      expect(await idsOf(`status=${encodeURIComponent('publish, draft')}`, EDITOR)).toEqual(sorted(s.publish, s.draft));
      expect(await idsOf('status[]=publish&status[]=draft&status[]=pending', EDITOR)).toEqual(sorted(s.publish, s.draft, s.pending));
      expect(await idsOf('status=draft&status=pending', EDITOR)).toEqual(sorted(s.draft, s.pending));
      expect(await idsOf('status=pending', VIEWER)).toEqual(s.pending);
    });

    it('editor: no status → every status but trash; any → the same', async () => {
      const s = await addByStatus();
      const privateEvent = await add({ status: 'private' });
      const trashed = await add();
      const deleted = await t.app.inject({ method: 'DELETE', url: `${API}/events/${trashed}`, headers: EDITOR });
      expect(deleted.statusCode).toBe(200);
      const all = sorted(s.publish, s.draft, s.pending, [privateEvent]);
      expect(await idsOf('per_page=50', EDITOR)).toEqual(all);
      expect(await idsOf('status=any&per_page=50', EDITOR)).toEqual(all);
      expect(await idsOf('status=any,draft&per_page=50', EDITOR)).toEqual(all);
      expect(await idsOf('status=trash', EDITOR)).toEqual([trashed]);
      expect(new URL((await listOk('status=any', EDITOR)).rest_url).searchParams.get('status')).toBe('publish,future,draft,pending,private');
    });

    it.each(['foo', 'foo, bar', 'foo, bar, publish', 'kinda_thinking_about_it', ''])('editor: refuses status=%j with 400', async (value) => {
      await addByStatus();
      await expectInvalid(`status=${encodeURIComponent(value)}`, 'status', EDITOR);
    });

    it('anonymous: status=publish → the published; anything else → 400', async () => {
      const s = await addByStatus();
      expect(await idsOf('status=publish')).toEqual(s.publish);
      expect(await idsOf('')).toEqual(s.publish);
      for (const value of ['publish, draft', 'draft', 'any', 'foo', 'status[]=publish&status[]=draft']) {
        const query = value.startsWith('status') ? value : `status=${encodeURIComponent(value)}`;
        await expectInvalid(query, 'status');
      }
    });

    it('shows a scheduled (future) event to anonymous callers only once its date has passed', async () => {
      const scheduled = await add({ status: 'publish', date: utcWall(Date.now() + 30 * DAY) });
      const read = await t.app.inject({ method: 'GET', url: `${API}/events/${scheduled}`, headers: EDITOR });
      expect(json(read).status).toBe('future');
      await expectEmpty('');
      expect(await idsOf('status=future', EDITOR)).toEqual([scheduled]);
      expect(await idsOf('status=publish', EDITOR)).toEqual([]);
    });
  });

  describe('include (EventByPostIDArchiveCest)', () => {
    it('returns the events named by id, as an array or CSV, with full representations', async () => {
      const created = await addMany(3);
      await add();
      const byArray = await listOk(`include[]=${created[0]}&include[]=${created[1]}&include[]=${created[2]}`);
      expect(byArray.events.map((e) => e.id)).toEqual(created);
      expect(byArray.total).toBe(3);
      const single = json(await t.app.inject({ method: 'GET', url: `${API}/events/${created[0]}` }));
      const { json_ld: _ld, ...representation } = single;
      expect(byArray.events[0]).toEqual(representation);
      expect((await listOk(`include=${created.join(',')}`)).events.map((e) => e.id)).toEqual(created);
      const two = await listOk(`include=${created[0]},${created[1]}`);
      expect(two.events.map((e) => e.id)).toEqual(created.slice(0, 2));
      expect(two.total).toBe(2);
    });

    it.each(['foo-bar,23,89', 'include[]=foo-bar&include[]=23', '0', '-5', '1.5', ''])('refuses include=%j with 400', async (value) => {
      const query = value.startsWith('include') ? value : `include=${encodeURIComponent(value)}`;
      await expectInvalid(query, 'include');
    });

    it('ignores every date filter: a past event is returned, explicit dates do not narrow', async () => {
      const now = Date.now();
      const past = (await createEventOk(t.app, { title: 'Last year', start_date: utcWall(now - 365 * DAY), end_date: utcWall(now - 365 * DAY + HOUR) }))
        .id as number;
      const upcoming = await add();
      const farFuture = (
        await createEventOk(t.app, { title: 'In three years', start_date: utcWall(now + 3 * 365 * DAY), end_date: utcWall(now + 3 * 365 * DAY + HOUR) })
      ).id as number;
      expect(await idsOf(`include=${past},${upcoming},${farFuture}`)).toEqual([past, upcoming, farFuture]);
      expect(await idsOf(`include=${past},${upcoming}&start_date=2099-01-01&end_date=2099-01-02`)).toEqual([past, upcoming]);
      expect(await idsOf(`include=${past}&starts_after=2099-01-01&strict_dates=true`)).toEqual([past]);
      expect(await idsOf('')).toEqual([upcoming]);
    });

    it('still validates the dates it ignores', async () => {
      const [id] = await addMany(1);
      await expectInvalid(`include=${id}&start_date=${encodeURIComponent('"before my birthday"')}`, 'start_date');
    });

    it('does not bypass visibility or the other filters; unknown ids are simply absent', async () => {
      const published = await add({ featured: true });
      const draft = await add({ status: 'draft', featured: true });
      const plain = await add();
      expect(await idsOf(`include=${published},${draft},${plain},999999`)).toEqual([published, plain]);
      expect(await idsOf(`include=${published},${draft},${plain}`, EDITOR)).toEqual([published, draft, plain]);
      expect(await idsOf(`include=${published},${draft},${plain}&featured=true`)).toEqual([published]);
      await expectEmpty('include=999999');
    });
  });

  describe('post_parent (EventByParentArchiveCest)', () => {
    it.each(['foo-bar', '0', '-1', '1.5'])('refuses post_parent=%j with 400', async (value) => {
      await expectInvalid(`post_parent=${value}`, 'post_parent');
    });

    it('refuses a parent that does not exist (23) with 400', async () => {
      await expectInvalid('post_parent=23', 'post_parent');
      const venue = await insertVenue(t.storage);
      await expectInvalid(`post_parent=${venue._id}`, 'post_parent');
    });

    it('lists the children of an event', async () => {
      const parent = await add({ title: 'Series' });
      const first = await add({ title: 'Series, part 1', post_parent: parent });
      const second = await add({ title: 'Series, part 2', post_parent: parent });
      const otherParent = await add({ title: 'Other series' });
      await add({ title: 'Other part', post_parent: otherParent });
      const body = await listOk(`post_parent=${parent}`);
      expect(body.events.map((e) => e.id)).toEqual([first, second]);
      expect([body.total, body.total_pages]).toEqual([2, 1]);
      expect(body.events.every((e) => e.post_parent === parent)).toBe(true);
      expect(new URL(body.rest_url).searchParams.get('post_parent')).toBe(String(parent));
    });

    it('accepts a draft parent for token holders, listing only what they may see; anonymous callers cannot name it', async () => {
      const parent = await add({ status: 'draft' });
      const child = await add({ post_parent: parent });
      const draftChild = await add({ post_parent: parent, status: 'draft' });
      expect(await idsOf(`post_parent=${parent}`, EDITOR)).toEqual([child, draftChild]);
      const anonymous = await t.app.inject({ method: 'GET', url: `${API}/events?post_parent=${parent}` });
      expect(anonymous.statusCode).toBe(400);
      expect(json(anonymous)).toMatchObject({ code: 'rest_invalid_param', data: { params: { post_parent: expect.any(String) } } });
    });
  });

  describe('ticketed', () => {
    it('selects events with (true) or without (false) tickets and echoes the flag', async () => {
      const ticketed = await addMany(2, { ticketed: true });
      const free = await addMany(2, { ticketed: false });
      const body = await listOk('ticketed=true');
      expect(body.events.map((e) => e.id)).toEqual(ticketed);
      expect(body.events.every((e) => e.ticketed === true)).toBe(true);
      expect(new URL(body.rest_url).searchParams.get('ticketed')).toBe('1');
      const without = await listOk('ticketed=0');
      expect(without.events.map((e) => e.id)).toEqual(free);
      expect(new URL(without.rest_url).searchParams.get('ticketed')).toBe('0');
      expect(await idsOf('')).toEqual([...ticketed, ...free]);
    });

    it('refuses a non-boolean ticketed with 400', async () => {
      await expectInvalid('ticketed=maybe', 'ticketed');
    });
  });

  describe('several bad parameters at once', () => {
    it('names each of them in one 400', async () => {
      const body = await expectInvalid('venue=foo&organizer=23&categories=nope&include=x&post_parent=23&status=draft', 'venue');
      expect(Object.keys(body.data.params ?? {}).sort()).toEqual(['categories', 'include', 'organizer', 'post_parent', 'status', 'venue']);
    });
  });
});
