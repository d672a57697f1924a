/**
 * Incremental sync, played by offline clients: a full load, writes of every kind, then one
 * `modified_after` pass per resource and one `/deleted` call must leave each client holding exactly
 * what a fresh full load shows — for an anonymous client and for a token holder. Then the parts one
 * by one: inclusive bounds, orderby=modified, no default window, errors, 410 past TOMBSTONE_DAYS.
 * The clock is the app's (`now`), moved by the test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API, EDITOR, json, openTestApp, type TestApp, VIEWER } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

type Json = Record<string, unknown>;
type Headers = Record<string, string>;

const MINUTE = 60_000;
/** How far behind the clock a client takes its window's upper bound: writes in flight land before it. */
const MARGIN = MINUTE;
const RESOURCES = ['events', 'venues', 'organizers'] as const;
const TERMS = ['categories', 'tags'] as const;
const PER_PAGE = 3;

/** `YYYY-MM-DDTHH:MM:SSZ`: an absolute date the list parameters read in any site time zone. */
const utc = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;

class Clock {
  constructor(private at: number) {}
  now = (): Date => new Date(this.at);
  advance(ms: number): void {
    this.at += ms;
  }
}

describe.each(engines.map((engine) => [engine.name, engine] as const))('%s engine: incremental sync', (_name, engine) => {
  let t: TestApp;
  let clock: Clock;

  beforeEach(async () => {
    clock = new Clock(Date.parse('2030-03-01T09:00:00.000Z'));
    t = await openTestApp(engine, {}, undefined, clock.now);
  });
  afterEach(async () => {
    await t.close();
  });

  async function call(method: 'GET' | 'POST' | 'DELETE', path: string, headers: Headers = EDITOR, payload?: Json): Promise<Json> {
    const response = await t.app.inject({ method, url: `${API}${path}`, headers, ...(payload === undefined ? {} : { payload }) });
    if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode} ${response.body}`);
    return json(response);
  }
  const create = async (path: string, payload: Json) => (await call('POST', path, EDITOR, payload)).id as number;
  const update = (path: string, payload: Json) => call('POST', path, EDITOR, payload);

  /** Every page of a list, following total_pages. */
  async function everyPage(path: string, query: string, headers: Headers): Promise<Json[]> {
    const key = path.slice(1);
    const items: Json[] = [];
    for (let page = 1; ; page++) {
      const body = await call('GET', `${path}?per_page=${PER_PAGE}&page=${page}${query}`, headers);
      items.push(...(body[key] as Json[]));
      if (page >= (body.total_pages as number)) return items;
    }
  }

  /** What a client holds: each list by id. */
  type Store = Record<(typeof RESOURCES)[number] | (typeof TERMS)[number], Map<number, Json>>;
  const byId = (items: Json[]) => new Map(items.map((item) => [item.id as number, item]));

  /** A full load (no default event window: `modified_after` far back), up to `until`. */
  async function fullLoad(headers: Headers, until?: Date): Promise<Store> {
    const bound = until === undefined ? '' : `&modified_before=${utc(until)}`;
    const store = {} as Store;
    for (const path of RESOURCES) store[path] = byId(await everyPage(`/${path}`, `&modified_after=2000-01-01&orderby=modified${bound}`, headers));
    for (const path of TERMS) store[path] = byId(await everyPage(`/${path}`, '&hide_empty=0', headers));
    return store;
  }

  /**
   * The two-call recipe of docs/api.md: the tombstones from `since` to `until`, dropped first; then
   * what changed in that window, upserted. Categories and tags are small and their counts change
   * with every event write: they are loaded again in full.
   */
  async function sync(store: Store, headers: Headers, since: Date, until: Date): Promise<void> {
    const window = `since=${utc(since)}&until=${utc(until)}`;
    for (const tombstone of await everyPage('/deleted', `&${window}`, headers)) {
      const path = { event: 'events', venue: 'venues', organizer: 'organizers', category: 'categories', tag: 'tags' }[tombstone.type as string]!;
      store[path as keyof Store].delete(tombstone.id as number);
    }
    for (const path of RESOURCES) {
      const changed = await everyPage(`/${path}`, `&modified_after=${utc(since)}&modified_before=${utc(until)}&orderby=modified`, headers);
      for (const item of changed) store[path].set(item.id as number, item);
    }
    for (const path of TERMS) store[path] = byId(await everyPage(`/${path}`, '&hide_empty=0', headers));
  }

  /**
   * The lists as a client shows them: an event's embedded categories and tags joined from the term
   * lists by id (their counts move with other events' writes, which do not touch this event).
   */
  function view(store: Store): Record<string, Json[]> {
    const joined = (terms: Json[], from: Map<number, Json>) =>
      terms.map((term) => {
        const current = from.get(term.id as number);
        if (current === undefined) return { ...term, missing: true };
        const { name, slug, description, count, urls } = current;
        return { ...term, name, slug, description, count, urls, ...(current.parent === undefined ? {} : { parent: current.parent }) };
      });
    const sorted = (map: Map<number, Json>) => [...map.values()].sort((a, b) => (a.id as number) - (b.id as number));
    const events = sorted(store.events).map((event) => ({
      ...event,
      categories: joined(event.categories as Json[], store.categories),
      tags: joined(event.tags as Json[], store.tags),
    }));
    return { events, venues: sorted(store.venues), organizers: sorted(store.organizers), categories: sorted(store.categories), tags: sorted(store.tags) };
  }

  /** The initial calendar; returns the ids the writes refer to. */
  async function seedCalendar() {
    const v1 = await create('/venues', { venue: 'Harbour Hall', city: 'Hamburg' });
    const v2 = await create('/venues', { venue: 'Old Mill', city: 'Bremen' });
    const v3 = await create('/venues', { venue: 'Back Room', status: 'draft' });
    const o1 = await create('/organizers', { organizer: 'Friends of Jazz' });
    const o2 = await create('/organizers', { organizer: 'Choir Society' });
    const c1 = await create('/categories', { name: 'Music' });
    const c2 = await create('/categories', { name: 'Jazz', parent: c1 });
    const c3 = await create('/categories', { name: 'Doomed' });
    const t1 = await create('/tags', { name: 'outdoor' });
    const t2 = await create('/tags', { name: 'doomed-tag' });
    const event = (title: string, extra: Json = {}) =>
      create('/events', { title, start_date: '2030-06-10 19:00:00', end_date: '2030-06-10 21:00:00', ...extra });
    const e = {
      linked: await event('Linked', { venue: v1, organizer: [o1], categories: [c1], tags: [t1] }),
      retitled: await event('Retitled', { venue: v2, organizer: [o2], categories: [c2] }),
      draft: await event('Draft', { status: 'draft', venue: v3 }),
      unpublished: await event('Unpublished', { venue: v1 }),
      tagged: await event('Tagged', { tags: [t2, t1] }),
      madePrivate: await event('Made private'),
      protect: await event('Protect'),
      hidden: await event('Hidden'),
      restored: await event('Restored'),
      trashed: await event('Trashed'),
      inDoomed: await event('In doomed', { categories: [c3, c1] }),
      // Outside the default window (yesterday to two years ahead): a sync sees it anyway.
      longAgo: await event('Long ago', { start_date: '2001-05-01 10:00:00', end_date: '2001-05-01 12:00:00' }),
    };
    await call('DELETE', `/events/${e.restored}`);
    return { v1, v2, v3, o1, o2, c1, c2, c3, t1, t2, e };
  }

  /** Writes of every kind, one a few seconds after the other. */
  async function writeEverything(ids: Awaited<ReturnType<typeof seedCalendar>>, scheduled: Date) {
    const { v1, v2, v3, o2, c1, c3, t2, e } = ids;
    const steps: Array<() => Promise<unknown>> = [
      () => create('/events', { title: 'New public', start_date: '2030-07-01 19:00', end_date: '2030-07-01 20:00', venue: v1 }),
      () => create('/events', { title: 'New draft', status: 'draft', start_date: '2030-07-02 19:00', end_date: '2030-07-02 20:00' }),
      () => update(`/events/${e.retitled}`, { title: 'Retitled again' }),
      () => call('DELETE', `/events/${e.trashed}`),
      () => update(`/events/${e.restored}`, { status: 'publish' }),
      () => call('DELETE', `/categories/${c3}`),
      () => call('DELETE', `/tags/${t2}`),
      () => update(`/events/${e.unpublished}`, { status: 'draft' }),
      () => update(`/events/${e.madePrivate}`, { status: 'private' }),
      () => update(`/events/${e.protect}`, { password: 'secret-pw' }),
      () => update(`/events/${e.hidden}`, { hide_from_listings: true }),
      () => call('DELETE', `/venues/${v2}`),
      () => update(`/venues/${v1}`, { city: 'Altona' }),
      () => update(`/venues/${v3}`, { status: 'publish' }),
      () => call('DELETE', `/organizers/${o2}`),
      () => update(`/categories/${c1}`, { name: 'Live music' }),
      // Scheduled: public only once the clock passes `scheduled`, without any further write.
      () => create('/venues', { venue: 'Rooftop', date_utc: utc(scheduled) }),
      () =>
        create('/events', {
          title: 'Scheduled',
          date_utc: utc(scheduled),
          start_date: '2030-08-01 19:00',
          end_date: '2030-08-01 20:00',
        }),
    ];
    for (const step of steps) {
      await step();
      clock.advance(3000);
    }
    // A public event linked to the scheduled venue: its representation changes when the venue goes public.
    const rooftop = [...(await fullLoad(EDITOR)).venues.values()].find((v) => v.venue === 'Rooftop')!.id;
    await create('/events', { title: 'At the rooftop', venue: rooftop, start_date: '2030-08-02 19:00', end_date: '2030-08-02 20:00' });
  }

  it.each([
    ['an anonymous client', {}],
    ['a token holder', VIEWER],
  ] as const)('lets %s reproduce every list with one modified_after pass per resource and one /deleted call', async (_who, headers) => {
    const ids = await seedCalendar();
    clock.advance(2 * MINUTE);
    const firstUntil = new Date(clock.now().getTime() - MARGIN);
    const store = await fullLoad(headers, firstUntil);
    expect(view(store)).toEqual(view(await fullLoad(headers)));

    clock.advance(MINUTE);
    const scheduled = new Date(clock.now().getTime() + 30 * MINUTE);
    await writeEverything(ids, scheduled);
    clock.advance(2 * MINUTE);
    const secondUntil = new Date(clock.now().getTime() - MARGIN);
    await sync(store, headers, firstUntil, secondUntil);
    const fresh = await fullLoad(headers);
    expect(view(store)).toEqual(view(fresh));
    // The writes showed: a new event, a retitled one, and the restored one are there; the trashed one is not.
    const titles = [...store.events.values()].map((event) => event.title);
    expect(titles).toEqual(expect.arrayContaining(['New public', 'Retitled again', 'Restored']));
    expect(titles).not.toContain('Trashed');
    expect([...store.categories.values()].map((c) => c.name)).toContain('Live music');

    // Past the scheduled instant, with no write: the scheduled records and the event embedding the
    // scheduled venue come in the next pass.
    clock.advance(40 * MINUTE);
    const thirdUntil = new Date(clock.now().getTime() - MARGIN);
    await sync(store, headers, secondUntil, thirdUntil);
    expect(view(store)).toEqual(view(await fullLoad(headers)));
    const rooftopEvent = [...store.events.values()].find((event) => event.title === 'At the rooftop')!;
    expect((rooftopEvent.venue as Json).venue).toBe('Rooftop');
    expect([...store.events.values()].map((event) => event.title)).toContain('Scheduled');
  });

  it('lists tombstones by audience: anonymous callers also learn what stopped being public', async () => {
    const { v2, v3, c3, t2, e } = await seedCalendar();
    clock.advance(MINUTE);
    const since = clock.now();
    await call('DELETE', `/events/${e.trashed}`);
    clock.advance(1000);
    await update(`/events/${e.unpublished}`, { status: 'draft' });
    clock.advance(1000);
    await update(`/events/${e.madePrivate}`, { status: 'private' });
    clock.advance(1000);
    await update(`/events/${e.protect}`, { password: 'secret-pw' });
    await update(`/events/${e.hidden}`, { hide_from_listings: true });
    await call('DELETE', `/venues/${v2}`);
    await update(`/venues/${v3}`, { status: 'publish' });
    await call('DELETE', `/categories/${c3}`);
    await call('DELETE', `/tags/${t2}`);
    await update(`/events/${e.restored}`, { status: 'draft' });
    const at = (ms: number) => new Date(since.getTime() + ms).toISOString().slice(0, 19).replace('T', ' ');
    const everyone = [
      { type: 'event', id: e.trashed, deleted_at: at(0) },
      { type: 'event', id: e.hidden, deleted_at: at(3000) },
      { type: 'venue', id: v2, deleted_at: at(3000) },
      { type: 'category', id: c3, deleted_at: at(3000) },
      { type: 'tag', id: t2, deleted_at: at(3000) },
    ];
    const anonymousOnly = [
      { type: 'event', id: e.unpublished, deleted_at: at(1000) },
      { type: 'event', id: e.madePrivate, deleted_at: at(2000) },
      // Trashed, then restored as a draft: gone for anonymous callers only, from the restore on.
      { type: 'event', id: e.restored, deleted_at: at(3000) },
    ];
    const keys = (list: Json[]) => list.map((d) => `${d.type as string}:${d.id as number}`).sort();
    const anonymous = (await call('GET', `/deleted?per_page=50&since=${utc(since)}`, {})).deleted as Json[];
    expect(keys(anonymous)).toEqual(keys([...everyone, ...anonymousOnly]));
    expect(anonymous).toEqual(expect.arrayContaining([...everyone, ...anonymousOnly]));
    // In deletion order: deleted_at never goes back.
    const times = anonymous.map((d) => d.deleted_at as string);
    expect(times).toEqual([...times].sort());
    const token = (await call('GET', `/deleted?per_page=50&since=${utc(since)}`, VIEWER)).deleted as Json[];
    expect(keys(token)).toEqual(keys(everyone));
    // The type filter, and its echo.
    const filtered = await call('GET', `/deleted?since=${utc(since)}&type=event,venue`, VIEWER);
    expect(keys(filtered.deleted as Json[])).toEqual(keys(everyone.filter((d) => d.type === 'event' || d.type === 'venue')));
    const echo = new URLSearchParams({ page: '1', per_page: '10', since: at(0), type: 'event,venue' });
    expect(filtered.rest_url).toBe(`http://localhost:80${API}/deleted/?${echo.toString()}`);

    // Published again: the tombstone goes, the record comes back with a new modified time.
    clock.advance(MINUTE);
    await update(`/events/${e.madePrivate}`, { status: 'publish' });
    const after = await call('GET', `/deleted?per_page=50&since=${utc(since)}`, {});
    expect((after.deleted as Json[]).some((d) => d.id === e.madePrivate)).toBe(false);
    const changed = await call('GET', `/events?modified_after=${utc(clock.now())}`, {});
    expect((changed.events as Json[]).map((event) => event.id)).toEqual([e.madePrivate]);
  });

  it('moves the modified time of the events a trashed venue, a deleted term or an edited organizer leaves or changes', async () => {
    const { v2, o1, c3, e } = await seedCalendar();
    const before = await fullLoad(EDITOR);
    clock.advance(MINUTE);
    const since = utc(clock.now());
    await call('DELETE', `/venues/${v2}`);
    await call('DELETE', `/categories/${c3}`);
    await update(`/organizers/${o1}`, { phone: '040 123' });
    const changed = (await call('GET', `/events?modified_after=${since}&orderby=modified`, EDITOR)).events as Json[];
    expect(changed.map((event) => event.id).sort()).toEqual([e.retitled, e.inDoomed, e.linked].sort());
    const modified = new Map(changed.map((event) => [event.id, event.modified_utc]));
    expect(modified.get(e.retitled)).not.toBe(before.events.get(e.retitled)!.modified_utc);
    expect((changed.find((event) => event.id === e.retitled)!.venue as unknown[]).length).toBe(0);
  });

  it('bounds modified_after and modified_before inclusively, to the second, and echoes them', async () => {
    clock = new Clock(Date.parse('2030-03-01T10:00:05.700Z'));
    await t.close();
    t = await openTestApp(engine, {}, undefined, clock.now);
    const id = await create('/venues', { venue: 'Exactly then' });
    const ids = async (query: string) => ((await call('GET', `/venues?${query}`, {})).venues as Json[]).map((v) => v.id);
    expect(await ids('modified_after=2030-03-01T10:00:05Z')).toEqual([id]);
    expect(await ids('modified_after=2030-03-01T10:00:06Z')).toEqual([]);
    expect(await ids('modified_before=2030-03-01T10:00:05Z')).toEqual([id]);
    expect(await ids('modified_before=2030-03-01T10:00:04Z')).toEqual([]);
    // Relative dates too, read against the clock.
    expect(await ids('modified_after=-1%20second')).toEqual([id]);
    const body = await call('GET', '/venues?modified_after=2030-03-01T10:00:05Z&modified_before=2030-03-01T11:00:00Z&orderby=modified&order=DESC', {});
    expect(body.rest_url).toBe(
      `http://localhost:80${API}/venues/?page=1&per_page=10&status=publish&modified_after=2030-03-01+10%3A00%3A05&modified_before=2030-03-01+11%3A00%3A00&orderby=modified&order=desc`,
    );
  });

  it('orders venues and organizers by modification time with orderby=modified, ties by id', async () => {
    const a = await create('/organizers', { organizer: 'Zeta' });
    const b = await create('/organizers', { organizer: 'Alpha' });
    const order = async (query: string) => ((await call('GET', `/organizers?${query}`, {})).organizers as Json[]).map((o) => o.id);
    // Modified in the same instant: by id.
    expect(await order('orderby=modified')).toEqual([a, b]);
    expect(await order('orderby=modified&order=desc')).toEqual([b, a]);
    clock.advance(1000);
    const c = await create('/organizers', { organizer: 'Mu' });
    clock.advance(1000);
    await update(`/organizers/${a}`, { phone: '1' });
    expect(await order('')).toEqual([b, c, a]);
    expect(await order('orderby=modified')).toEqual([b, c, a]);
    await update(`/organizers/${b}`, { phone: '2' });
    expect(await order('orderby=modified')).toEqual([c, a, b]);
    expect(await order('orderby=modified&order=desc')).toEqual([b, a, c]);
    expect(await order('orderby=name&order=desc')).toEqual([a, c, b]);
  });

  it('lists events of any date when a modification bound is given, and refuses bad dates naming the parameter', async () => {
    const old = await create('/events', { title: 'Long ago', start_date: '2001-05-01 10:00', end_date: '2001-05-01 12:00' });
    const events = async (query: string) => ((await call('GET', `/events?${query}`, {})).events as Json[]).map((event) => event.id);
    expect(await events('')).toEqual([]);
    expect(await events('modified_after=2000-01-01')).toEqual([old]);
    expect(await events('modified_before=2100-01-01')).toEqual([old]);
    // An explicit window still applies.
    expect(await events('modified_after=2000-01-01&start_date=2020-01-01')).toEqual([]);
    for (const [path, param] of [
      ['/events', 'modified_after'],
      ['/events', 'modified_before'],
      ['/venues', 'modified_after'],
      ['/organizers', 'modified_before'],
      ['/deleted', 'since'],
    ] as const) {
      const response = await t.app.inject({ method: 'GET', url: `${API}${path}?${param}=not-a-date` });
      expect(response.statusCode, `${path} ${param}`).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { [param]: `${param} is not a valid date.` } } });
    }
    const missing = await t.app.inject({ method: 'GET', url: `${API}/deleted` });
    expect(json(missing)).toMatchObject({ code: 'rest_missing_callback_param', data: { status: 400 } });
    const badType = await t.app.inject({ method: 'GET', url: `${API}/deleted?since=-1%20day&type=event,widget` });
    expect(json(badType)).toMatchObject({ code: 'rest_invalid_param', data: { params: { type: expect.stringContaining('widget') } } });
  });

  it('answers 410 rest_sync_expired for a since older than TOMBSTONE_DAYS, and prunes older tombstones on writes', async () => {
    await t.close();
    t = await openTestApp(engine, { TOMBSTONE_DAYS: '2' }, undefined, clock.now);
    const first = await create('/venues', { venue: 'First' });
    const start = clock.now();
    await call('DELETE', `/venues/${first}`);
    expect(await t.storage.tombstones.count({})).toBe(1);

    clock.advance(2 * 24 * 60 * MINUTE);
    // Exactly TOMBSTONE_DAYS back is still answered.
    expect((await call('GET', `/deleted?since=${utc(start)}`, {})).total).toBe(1);
    clock.advance(1000);
    for (const [root, text] of [
      ['', 'Deletions are kept for 2 days'],
      ['/de', 'Entfernungen werden 2 Tage aufbewahrt'],
    ] as const) {
      const response = await t.app.inject({ method: 'GET', url: `${root}${API}/deleted?since=${utc(start)}` });
      expect(response.statusCode).toBe(410);
      expect(json(response)).toMatchObject({ code: 'rest_sync_expired', message: expect.stringContaining(text), data: { status: 410, days: 2 } });
    }

    // The next write that leaves a tombstone prunes the old one (in the background).
    const second = await create('/venues', { venue: 'Second' });
    await call('DELETE', `/venues/${second}`);
    await expect.poll(() => t.storage.tombstones.count({})).toBe(1);
    expect((await t.storage.tombstones.find({ filter: {} }))[0]!.recordId).toBe(second);
  });
});
