/**
 * Access rules around the authorization matrix: operator injection never widens what a
 * caller sees; scheduled publication is evaluated at read time; password protection field for
 * field; per-client rate limits; the CORS allowlist; and logs that
 * never carry a token or a password.
 */
import { type LightMyRequestResponse } from 'fastify';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import {
  API,
  EDITOR,
  EDITOR_TOKEN,
  type TestApp,
  VIEWER,
  VIEWER_TOKEN,
  countAll,
  createEventOk,
  insertCategory,
  insertOrganizer,
  insertTag,
  insertVenue,
  json,
  makeEventInput,
  openTestApp,
  REDACTED_IN_LISTS,
  snapshot,
} from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { point } from '../helpers/factories.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type Headers = Record<string, string>;

const SECRET = 's3cr3t';
const PASSWORD = 'Lantern-pw-7d41c0e9';
const OTHER_PASSWORD = 'Harbour-pw-2b98f1aa';
const DAY = 86_400_000;
const wall = (instant: Date) => instant.toISOString().slice(0, 19).replace('T', ' ');
const inDays = (days: number) => new Date(Date.now() + days * DAY);
const ids = (items: unknown) => (items as Body[]).map((item) => item.id as number).sort((a, b) => a - b);

/** Starts and ends within the default list window (yesterday … +24 months). */
const soon = (day: number, fields: Body = {}): Body =>
  makeEventInput({ start_date: wall(inDays(day)), end_date: wall(new Date(inDays(day).getTime() + 2 * 3_600_000)), ...fields });

/**
 * Operator injection may be refused (400 `rest_invalid_param`) or ignored; either way the answer
 * holds only records the caller could see without it.
 */
function expectNoWidening(response: LightMyRequestResponse, key: string, allowed: number[], label: string): void {
  if (response.statusCode === 400) {
    expect(json(response), label).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
    return;
  }
  expect(response.statusCode, `${label}: ${response.body.slice(0, 200)}`).toBe(200);
  const listed = ids(json(response)[key]);
  expect(
    listed.every((id) => allowed.includes(id)),
    `${label} listed ${JSON.stringify(listed)}`,
  ).toBe(true);
  expect(response.body.toLowerCase(), label).not.toContain(SECRET);
}

/** An event's representation without the `count` of its terms, which follows the caller. */
function withoutTermCounts(event: Record<string, unknown>): Record<string, unknown> {
  const strip = (terms: unknown) => (terms as Array<Record<string, unknown>>).map(({ count: _count, ...term }) => term);
  return { ...event, categories: strip(event.categories), tags: strip(event.tags) };
}

describe.each(engines)('$name engine: access rules', (engine) => {
  describe('operator injection never widens visibility', () => {
    let t: TestApp;
    const fx = { published: 0, draft: 0, trashed: 0, protected: 0, publicVenue: 0, draftVenue: 0, publicOrganizer: 0, draftOrganizer: 0, category: 0 };
    beforeAll(async () => {
      t = await openTestApp(engine);
      const venue = await insertVenue(t.storage, { name: 'Open hall', nameKey: 'open hall', slug: 'open-hall' });
      const hiddenVenue = await insertVenue(t.storage, { name: `Hall ${SECRET}`, nameKey: `hall ${SECRET}`, slug: `hall-${SECRET}`, status: 'draft' });
      const organizer = await insertOrganizer(t.storage, { name: 'Open friends', nameKey: 'open friends', slug: 'open-friends' });
      const hiddenOrganizer = await insertOrganizer(t.storage, {
        name: `Friends ${SECRET}`,
        nameKey: `friends ${SECRET}`,
        slug: `friends-${SECRET}`,
        status: 'pending',
      });
      const category = await insertCategory(t.storage);
      Object.assign(fx, {
        publicVenue: venue._id,
        draftVenue: hiddenVenue._id,
        publicOrganizer: organizer._id,
        draftOrganizer: hiddenOrganizer._id,
        category: category._id,
      });
      fx.published = (await createEventOk(t.app, soon(3, { title: 'Open air', venue: venue._id, organizer: [organizer._id], categories: [category._id] })))
        .id as number;
      fx.draft = (await createEventOk(t.app, soon(4, { title: `Draft ${SECRET}`, status: 'draft', venue: venue._id, categories: [category._id] })))
        .id as number;
      fx.trashed = (await createEventOk(t.app, soon(5, { title: `Trashed ${SECRET}` }))).id as number;
      fx.protected = (await createEventOk(t.app, soon(6, { title: 'Locked gala', description: `Locked ${SECRET} words`, categories: [category._id] })))
        .id as number;
      await t.app.inject({ method: 'DELETE', url: `${API}/events/${fx.trashed}`, headers: EDITOR });
      await t.app.inject({ method: 'PATCH', url: `${API}/events/${fx.protected}`, headers: EDITOR, payload: { password: PASSWORD } });
    });
    afterAll(async () => {
      await t?.close();
    });

    const get = (url: string, headers: Headers = {}) => t.app.inject({ method: 'GET', url: `${API}${url}`, headers });

    it.each([
      'status[$ne]=publish',
      'status[$in][]=draft',
      'status[$in][0]=draft&status[$in][1]=trash',
      'status=publish&status[$gt]=',
      'status[$nin][]=publish',
      'status[$regex]=.*',
      'status[$exists]=true',
      '__proto__[status]=draft',
      'constructor[prototype][status]=draft',
      '__proto__=draft',
      'include[$ne]=0',
      'venue[$ne]=0',
      'search[$regex]=.*',
      'password[$ne]=x',
      'password[$gt]=',
    ])('GET /events?%s as anonymous shows published events only', async (query) => {
      const response = await get(`/events?per_page=50&${query}`);
      expectNoWidening(response, 'events', [fx.published, fx.protected], query);
      // The protected event stays redacted: nothing in the query is its password.
      if (response.statusCode === 200) {
        const locked = (json(response).events as Body[]).find((e) => e.id === fx.protected);
        if (locked) expect(locked).toMatchObject({ description: '', categories: [], venue: [] });
      }
    });

    it.each(['$where=1', '$or[0][status]=draft', '$ne=publish', 'status=publish&$where=this.status'])(
      'GET /events?%s is refused with 400 naming the $-prefixed parameter',
      async (query) => {
        const response = await get(`/events?${query}`);
        expect(response.statusCode).toBe(400);
        const body = json<{ code: string; data: { params: Record<string, string> } }>(response);
        expect(body.code).toBe('rest_invalid_param');
        expect(Object.keys(body.data.params).some((key) => key.startsWith('$'))).toBe(true);
      },
    );

    it.each(['venues', 'organizers'])('GET /%s with operator-looking statuses lists published records only', async (path) => {
      const allowed = path === 'venues' ? [fx.publicVenue] : [fx.publicOrganizer];
      for (const query of ['status[$ne]=publish', 'status[$in][]=draft', 'status=publish&status[$gt]=', '__proto__[status]=draft', `event[$ne]=${fx.draft}`]) {
        expectNoWidening(await get(`/${path}?per_page=50&${query}`), path, allowed, `${path}?${query}`);
      }
      const refused = await get(`/${path}?status[]=publish&status[]=draft`);
      expect(refused.statusCode).toBe(400);
    });

    it('a repeated or listed status never adds a hidden one for anonymous callers', async () => {
      for (const query of ['status=publish&status=draft', 'status[]=publish&status[]=trash', 'status[0]=draft', 'status=publish,private', 'status=any']) {
        const response = await get(`/events?${query}`);
        expect(response.statusCode, query).toBe(400);
        expect(json(response)).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { status: expect.any(String) } } });
      }
    });

    it('single reads ignore operator-looking parameters: hidden stays 403, protected stays locked', async () => {
      for (const query of ['status[$ne]=x', 'status=publish', '__proto__[status]=publish', 'context[$ne]=view']) {
        const draft = await get(`/events/${fx.draft}?${query}`);
        expect([400, 403], query).toContain(draft.statusCode);
        expect(draft.body.toLowerCase()).not.toContain(SECRET);
      }
      for (const query of ['password[$ne]=x', 'password[$gt]=', 'password[$exists]=true', 'password[]=x', `password[$eq]=${PASSWORD}x`, 'context=edit']) {
        const locked = await get(`/events/${fx.protected}?${query}`);
        expect([400, 403], query).toContain(locked.statusCode);
        expect(locked.body).not.toContain('Locked gala');
      }
      const hiddenVenue = await get(`/venues/${fx.draftVenue}?status[$ne]=publish`);
      expect([400, 403]).toContain(hiddenVenue.statusCode);
    });

    it('a GET body is never read as a filter', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: `${API}/events?per_page=50`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ status: { $ne: 'publish' }, password: { $ne: null } }),
      });
      expectNoWidening(response, 'events', [fx.published, fx.protected], 'GET with a JSON body');
    });

    it('write bodies with operators are 401 for anonymous callers and 400 for the editor, and change nothing', async () => {
      const before = await snapshot(t.storage);
      const bodies: Array<[string, string, string]> = [
        ['POST', '/events', JSON.stringify(makeEventInput({ status: { $ne: 'x' } }))],
        ['PATCH', `/events/${fx.draft}`, JSON.stringify({ status: { $ne: 'draft' } })],
        ['PATCH', `/events/${fx.draft}`, JSON.stringify({ $where: 'this.status = "publish"' })],
        ['PATCH', `/events/${fx.draft}`, JSON.stringify({ $set: { status: 'publish' } })],
        ['PATCH', `/events/${fx.draft}`, JSON.stringify({ title: 'x', venue: { venue: 'Injected hall', status: { $in: ['publish'] } } })],
        ['PATCH', `/events/${fx.protected}`, JSON.stringify({ password: { $ne: null } })],
        ['PATCH', `/events/${fx.draft}`, '{"__proto__": {"status": "publish"}}'],
        ['PATCH', `/events/${fx.draft}`, '{"constructor": {"prototype": {"status": "publish"}}}'],
        ['PUT', `/venues/${fx.draftVenue}`, JSON.stringify({ status: { $ne: 'draft' } })],
        ['POST', `/organizers/${fx.draftOrganizer}`, JSON.stringify({ status: { $exists: true } })],
        ['PATCH', `/categories/${fx.category}`, JSON.stringify({ name: { $ne: '' } })],
        ['DELETE', `/events/${fx.protected}`, JSON.stringify({ password: { $ne: null } })],
      ];
      for (const [method, url, payload] of bodies) {
        const request = { method: method as 'POST', url: `${API}${url}`, payload, headers: { 'content-type': 'application/json' } };
        const anonymous = await t.app.inject(request);
        expect(anonymous.statusCode, `${method} ${url} ${payload} anonymous`).toBe(401);
        if (method === 'DELETE') continue;
        const editor = await t.app.inject({ ...request, headers: { ...request.headers, ...EDITOR } });
        expect(editor.statusCode, `${method} ${url} ${payload} editor: ${editor.body}`).toBe(400);
        expect(json(editor)).toMatchObject({ data: { status: 400 } });
      }
      // Form bodies: `status[$ne]=…` is a key no write accepts.
      for (const headers of [{}, EDITOR]) {
        const form = await t.app.inject({
          method: 'PATCH',
          url: `${API}/events/${fx.draft}`,
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'status[$ne]=draft&title=Injected',
        });
        expect(form.statusCode).toBe(headers === EDITOR ? 400 : 401);
      }
      expect(await snapshot(t.storage)).toEqual(before);
      expect((await get(`/events/${fx.draft}`)).statusCode).toBe(403);
    });

    it('anonymous filters cannot name a hidden venue or organizer to find the events linked to it', async () => {
      const linked = (await createEventOk(t.app, soon(7, { title: 'Open at a hidden hall', venue: fx.draftVenue, organizer: [fx.draftOrganizer] })))
        .id as number;
      for (const query of [`venue=${fx.draftVenue}`, `organizer=${fx.draftOrganizer}`]) {
        const anonymous = await get(`/events?${query}`);
        // Treated like an id that does not exist: nothing tells that the event is at that venue.
        expect(anonymous.statusCode, `${query}: ${anonymous.body.slice(0, 200)}`).toBe(400);
        expect(json(anonymous)).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
        const viewer = await get(`/events?${query}`, VIEWER);
        expect(viewer.statusCode).toBe(200);
        expect(ids(json(viewer).events)).toEqual([linked]);
      }
      // A published venue still filters for everybody.
      const open = await get(`/events?venue=${fx.publicVenue}`);
      expect(open.statusCode).toBe(200);
      expect(ids(json(open).events)).toEqual([fx.published]);
    });

    it('has_events counts only what the caller may see', async () => {
      // A published venue whose only events are hidden: private, scheduled, protected.
      const venue = await insertVenue(t.storage, { name: 'Quiet hall', nameKey: 'quiet hall', slug: 'quiet-hall' });
      const organizer = await insertOrganizer(t.storage, { name: 'Quiet friends', nameKey: 'quiet friends', slug: 'quiet-friends' });
      const links = { venue: venue._id, organizer: [organizer._id] };
      await createEventOk(t.app, soon(8, { title: `Private ${SECRET}`, status: 'private', ...links }));
      await createEventOk(t.app, soon(9, { title: `Scheduled ${SECRET}`, status: 'future', date_utc: Math.floor(inDays(30).getTime() / 1000), ...links }));
      const locked = (await createEventOk(t.app, soon(10, { title: 'Quiet gala', ...links }))).id as number;
      await t.app.inject({ method: 'PATCH', url: `${API}/events/${locked}`, headers: EDITOR, payload: { password: OTHER_PASSWORD } });
      for (const [path, id] of [
        ['venues', venue._id],
        ['organizers', organizer._id],
      ] as const) {
        const withEvents = await get(`/${path}?per_page=50&has_events=1`);
        expect(ids(json(withEvents)[path]), `${path} has_events=1`).not.toContain(id);
        const without = await get(`/${path}?per_page=50&has_events=0`);
        expect(ids(json(without)[path]), `${path} has_events=0`).toContain(id);
        const viewer = await get(`/${path}?per_page=50&has_events=1`, VIEWER);
        expect(ids(json(viewer)[path]), `${path} has_events=1 as viewer`).toContain(id);
      }
    });
  });

  describe('scheduled publication is evaluated at read time', () => {
    let t: TestApp;
    // The services' clock: set by the tests, so an instant passes without waiting for it.
    let clock = Date.now();
    beforeAll(async () => {
      t = await openTestApp(engine, {}, undefined, () => new Date(clock));
    });
    afterAll(async () => {
      await t?.close();
    });
    const get = (url: string, headers: Headers = {}) => t.app.inject({ method: 'GET', url: `${API}${url}`, headers });

    it('publish with a future date is scheduled; future with a past date is published at once', async () => {
      const later = await createEventOk(t.app, soon(2, { title: 'Published later', date_utc: Math.floor(inDays(10).getTime() / 1000) }));
      expect(later.status).toBe('future');
      expect((await get(`/events/${later.id as number}`)).statusCode).toBe(403);
      const past = await createEventOk(t.app, soon(2, { title: 'Long due', status: 'future', date_utc: 1_577_836_800 }));
      const anonymous = await get(`/events/${past.id as number}`);
      expect(anonymous.statusCode).toBe(200);
      expect(json(anonymous).status).toBe('publish');
      expect(json(anonymous).json_ld).toBeDefined();
    });

    it('a future event, venue and organizer become public at their instant without any job running', async () => {
      // Whole seconds (the API's precision); until the checks below are done, the clock stands a
      // millisecond before it.
      const at = (Math.ceil(Date.now() / 1000) + 3) * 1000;
      clock = at - 1;
      const when = Math.floor(at / 1000);
      const venue = json(
        await t.app.inject({
          method: 'POST',
          url: `${API}/venues`,
          headers: EDITOR,
          payload: { venue: `Hall ${SECRET} soon`, status: 'future', date_utc: when },
        }),
      );
      const organizer = json(
        await t.app.inject({
          method: 'POST',
          url: `${API}/organizers`,
          headers: EDITOR,
          payload: { organizer: `Friends ${SECRET} soon`, status: 'future', date_utc: when },
        }),
      );
      expect(venue.status).toBe('future');
      expect(organizer.status).toBe('future');
      const event = await createEventOk(
        t.app,
        soon(2, {
          title: `Premiere ${SECRET}`,
          status: 'future',
          date_utc: when,
          venue: venue.id,
          organizer: [organizer.id],
        }),
      );
      const id = event.id as number;
      expect(event.status).toBe('future');
      // A published event at the scheduled venue: the venue is not embedded yet.
      const host = (await createEventOk(t.app, soon(3, { title: 'Warm-up', venue: venue.id, organizer: [organizer.id] }))).id as number;

      const before = {
        single: await get(`/events/${id}`),
        bySlug: await get(`/events/by-slug/${event.slug as string}`),
        list: await get('/events?per_page=50'),
        venue: await get(`/venues/${venue.id as number}`),
        organizer: await get(`/organizers/${organizer.id as number}`),
        host: await get(`/events/${host}`),
        viewerFuture: await get('/events?status=future', VIEWER),
        viewerSingle: await get(`/events/${id}`, VIEWER),
      };
      expect(before.single.statusCode).toBe(403);
      expect(json(before.single).code).toBe('event-not-accessible');
      expect(before.bySlug.statusCode).toBe(403);
      expect(ids(json(before.list).events)).toContain(host);
      expect(ids(json(before.list).events)).not.toContain(id);
      expect(before.venue.statusCode).toBe(403);
      expect(json(before.venue).code).toBe('venue-not-accessible');
      expect(before.organizer.statusCode).toBe(403);
      expect(json(before.host).venue).toEqual([]);
      expect(json(before.host).organizer).toEqual([]);
      for (const response of [before.single, before.bySlug, before.list, before.venue, before.organizer, before.host]) {
        expect(response.body.toLowerCase()).not.toContain(SECRET);
      }
      expect(ids(json(before.viewerFuture).events)).toContain(id);
      expect(json(before.viewerSingle).status).toBe('future');

      // The instant itself: from then on they are public.
      clock = at;

      const single = await get(`/events/${id}`);
      expect(single.statusCode).toBe(200);
      expect(json(single).status).toBe('publish');
      expect(json(single).json_ld).toBeDefined();
      expect((await get(`/events/by-slug/${event.slug as string}`)).statusCode).toBe(200);
      expect(ids(json(await get('/events?per_page=50')).events)).toEqual(expect.arrayContaining([host, id]));
      const venueNow = await get(`/venues/${venue.id as number}`);
      expect(venueNow.statusCode).toBe(200);
      expect(json(venueNow).status).toBe('publish');
      expect((await get(`/organizers/${organizer.id as number}`)).statusCode).toBe(200);
      const hostNow = json(await get(`/events/${host}`));
      expect((hostNow.venue as Body).id).toBe(venue.id);
      expect((hostNow.organizer as Body[]).map((o) => o.id)).toEqual([organizer.id]);
      expect(ids(json(await get('/venues?per_page=50')).venues)).toContain(venue.id);
      // For token holders it is no longer `future` either.
      expect(ids(json(await get('/events?status=future', VIEWER)).events)).not.toContain(id);
      expect(ids(json(await get('/events?status=publish', VIEWER)).events)).toContain(id);
    });
  });

  describe('password-protected events', () => {
    let t: TestApp;
    let locked: number;
    let other: number;
    let plain: number;
    let lockedSlug: string;
    const only = { category: 0, tag: 0, venue: 0, organizer: 0 };
    beforeAll(async () => {
      t = await openTestApp(engine);
      const venue = await insertVenue(t.storage, { name: 'Gala hall', nameKey: 'gala hall', slug: 'gala-hall', location: point(13.4, 52.5) });
      const organizer = await insertOrganizer(t.storage, { name: 'Gala friends', nameKey: 'gala friends', slug: 'gala-friends' });
      const category = await insertCategory(t.storage, { name: 'Galas', nameKey: 'galas', slug: 'galas' });
      const tag = await insertTag(t.storage, { name: 'Black tie', nameKey: 'black tie', slug: 'black-tie' });
      Object.assign(only, { category: category._id, tag: tag._id, venue: venue._id, organizer: organizer._id });
      const created = await createEventOk(
        t.app,
        soon(3, {
          title: 'Winter gala',
          description: 'An evening of zanzibarquux dances.',
          excerpt: 'Zanzibarquux night',
          image: 'https://images.example/gala.jpg',
          all_day: false,
          cost: '45 EUR',
          website: 'https://gala.example/',
          show_map: true,
          show_map_link: true,
          hide_from_listings: false,
          sticky: true,
          featured: true,
          ticketed: true,
          categories: [category._id],
          tags: [tag._id],
          venue: venue._id,
          organizer: [organizer._id],
        }),
      );
      locked = created.id as number;
      lockedSlug = created.slug as string;
      other = (await createEventOk(t.app, soon(4, { title: 'Spring gala', description: 'Other zanzibarquux evening.' }))).id as number;
      plain = (await createEventOk(t.app, soon(5, { title: 'Open rehearsal', description: 'Everybody welcome.' }))).id as number;
      for (const [id, password] of [
        [locked, PASSWORD],
        [other, OTHER_PASSWORD],
      ] as const) {
        const response = await t.app.inject({ method: 'PATCH', url: `${API}/events/${id}`, headers: EDITOR, payload: { password } });
        expect(response.statusCode).toBe(200);
        expect(response.body).not.toContain(password);
      }
    });
    afterAll(async () => {
      await t?.close();
    });

    const get = (url: string, headers: Headers = {}) => t.app.inject({ method: 'GET', url: `${API}${url}`, headers });
    const entry = async (query: string, headers: Headers = {}, id = locked) => {
      const response = await get(`/events?per_page=50${query}`, headers);
      expect(response.statusCode).toBe(200);
      const found = (json(response).events as Body[]).find((e) => e.id === id);
      expect(found, `event ${id} listed for ${query}`).toBeDefined();
      return found as Body;
    };

    /** what a list keeps of a protected event (the rest is REDACTED_IN_LISTS). */
    const KEPT = [
      'id',
      'global_id',
      'global_id_lineage',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'rest_url',
      'title',
      'slug',
      'start_date',
      'start_date_details',
      'end_date',
      'end_date_details',
      'utc_start_date',
      'utc_start_date_details',
      'utc_end_date',
      'utc_end_date_details',
      'timezone',
      'timezone_abbr',
      'post_parent',
    ];

    it('lists redact exactly the fields of the reference, field for field', async () => {
      const full = await entry('&context=edit', EDITOR);
      // The fixture fills every redacted field, so each blanking is visible.
      for (const field of Object.keys(REDACTED_IN_LISTS).filter((f) => f !== 'custom_fields')) {
        expect(full[field], `full ${field}`).not.toEqual(REDACTED_IN_LISTS[field]);
      }
      expect(Object.keys(full).sort()).toEqual([...Object.keys(REDACTED_IN_LISTS), ...KEPT].sort());
      for (const [caller, headers] of [
        ['anonymous', {}],
        ['viewer', VIEWER],
        ['editor', EDITOR],
      ] as const) {
        const redacted = await entry('', headers);
        expect(Object.keys(redacted), caller).toEqual(Object.keys(full));
        for (const field of Object.keys(full)) {
          expect(redacted[field], `${caller}: ${field}`).toEqual(field in REDACTED_IN_LISTS ? REDACTED_IN_LISTS[field] : full[field]);
        }
        expect(JSON.stringify(redacted).toLowerCase()).not.toContain('zanzibarquux');
      }
    });

    it('?password= unlocks in lists only the event it belongs to', async () => {
      const full = await entry('&context=edit', EDITOR);
      const unlocked = await entry(`&password=${PASSWORD}`);
      // In full, but with the term counts of its caller (a protected event counts for editors only).
      expect(withoutTermCounts(unlocked)).toEqual(withoutTermCounts(full));
      // The other protected event keeps its fields hidden; the plain one is unaffected.
      const stillLocked = await entry(`&password=${PASSWORD}`, {}, other);
      expect(stillLocked.description).toBe('');
      expect(await entry(`&password=${OTHER_PASSWORD}`, {}, other)).toMatchObject({ description: expect.stringContaining('zanzibarquux') });
      expect((await entry(`&password=${OTHER_PASSWORD}`)).description).toBe('');
      expect((await entry(`&password=${PASSWORD}x`)).description).toBe('');
      expect((await entry(`&password=${PASSWORD.toUpperCase()}`)).description).toBe('');
      expect((await entry('', {}, plain)).description).not.toBe('');
    });

    it('single reads: 403 event-password-protected without the right password, 200 in full with it', async () => {
      const full = json(await get(`/events/${locked}?context=edit`, EDITOR));
      for (const url of [`/events/${locked}`, `/events/by-slug/${lockedSlug}`]) {
        for (const [query, headers] of [
          ['', {}],
          ['?password=wrong', {}],
          [`?password=${OTHER_PASSWORD}`, {}],
          ['', VIEWER],
          ['', EDITOR],
          [`?password=${PASSWORD.slice(0, -1)}`, EDITOR],
        ] as const) {
          const response = await get(`${url}${query}`, headers);
          expect(response.statusCode, `${url}${query}`).toBe(403);
          expect(json(response)).toEqual({
            code: 'event-password-protected',
            message: 'The requested event is not accessible without a password',
            data: { status: 403 },
          });
        }
        for (const headers of [{}, VIEWER, EDITOR]) {
          const response = await get(`${url}?password=${PASSWORD}`, headers);
          expect(response.statusCode).toBe(200);
          expect(withoutTermCounts(json(response))).toEqual(withoutTermCounts(full));
        }
      }
      expect(full.description).toContain('zanzibarquux');
    });

    it('context=edit unlocks for editors only', async () => {
      expect((await get(`/events/${locked}?context=edit`, EDITOR)).statusCode).toBe(200);
      expect((await get(`/events/by-slug/${lockedSlug}?context=edit`, EDITOR)).statusCode).toBe(200);
      for (const headers of [{}, VIEWER]) {
        expect((await get(`/events/${locked}?context=edit`, headers)).statusCode).toBe(403);
        expect((await entry('&context=edit', headers)).description).toBe('');
      }
      expect((await entry('&context=edit', EDITOR)).description).toContain('zanzibarquux');
    });

    it.each([
      ['search', 'search=zanzibarquux'],
      ['category', () => `categories=${only.category}`],
      ['category slug', 'categories=galas'],
      ['tag', () => `tags=${only.tag}`],
      ['venue', () => `venue=${only.venue}`],
      ['organizer', () => `organizer=${only.organizer}`],
      ['featured', 'featured=true'],
      ['ticketed', 'ticketed=true'],
      ['geoloc', 'geoloc=true'],
      ['geoloc point', 'geoloc_lat=52.5&geoloc_lng=13.4&geoloc_radius=5&geoloc_unit=km'],
    ] as Array<[string, string | (() => string)]>)(
      '%s filters never match what the password hides, for anyone who could not read it in full',
      async (_name, query) => {
        const q = typeof query === 'string' ? query : query();
        // Anonymous, a viewer, an editor without context=edit: none could read it in full.
        for (const headers of [{}, VIEWER, EDITOR]) {
          const response = await get(`/events?per_page=50&${q}`, headers);
          expect(response.statusCode).toBe(200);
          expect(ids(json(response).events)).not.toContain(locked);
          expect(json(response).total).toBe((json(response).events as unknown[]).length);
        }
        expect(ids(json(await get(`/events?per_page=50&context=edit&${q}`, VIEWER)).events)).not.toContain(locked);
        // With the password it matches, in full; and for an editor asking context=edit.
        const unlocked = await get(`/events?per_page=50&${q}&password=${PASSWORD}`);
        expect(ids(json(unlocked).events)).toContain(locked);
        expect(ids(json(await get(`/events?per_page=50&context=edit&${q}`, EDITOR)).events)).toContain(locked);
      },
    );

    it('term counts follow what the caller could list: a protected event counts for editors only', async () => {
      const countOf = async (headers: Record<string, string>) => {
        const list = json<{ categories: Array<{ id: number; count: number }> }>(
          await get(`/categories?include=${only.category}&hide_empty=false`, headers),
        ).categories;
        const single = json<{ count: number }>(await get(`/categories/${only.category}`, headers));
        expect(single.count).toBe(list[0]!.count);
        return single.count;
      };
      // The category is used by the protected event alone.
      expect(await countOf({})).toBe(0);
      expect(await countOf(VIEWER)).toBe(0);
      expect(await countOf(EDITOR)).toBe(1);
      // Nor does an anonymous list hide_empty=true reveal it.
      expect(ids(json(await get(`/categories?include=${only.category}`)).categories)).toEqual([]);
    });

    it('anonymous callers cannot name a protected event in list filters', async () => {
      for (const url of [
        `/venues?event=${locked}`,
        `/organizers?event=${locked}`,
        `/categories?post=${locked}`,
        `/tags?event=${locked}`,
        `/events?post_parent=${locked}`,
      ]) {
        const anonymous = await get(url);
        expect(anonymous.statusCode, url).toBe(400);
        // Its terms are what the redaction hides: only an editor may list them.
        const viewerStatus = url.startsWith('/categories') || url.startsWith('/tags') ? 400 : 200;
        expect((await get(url, VIEWER)).statusCode, `${url} as viewer`).toBe(viewerStatus);
        expect((await get(url, EDITOR)).statusCode, `${url} as editor`).toBe(200);
      }
      // Nor infer its venue or organizer through has_events / only_with_upcoming.
      for (const [path, id] of [
        ['venues', only.venue],
        ['organizers', only.organizer],
      ] as const) {
        expect(ids(json(await get(`/${path}?has_events=1`))[path])).not.toContain(id);
        expect(ids(json(await get(`/${path}?only_with_upcoming=1`))[path])).not.toContain(id);
      }
    });

    it('passwords are set on id routes only and never returned', async () => {
      const created = await t.app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ password: PASSWORD }) });
      expect(created.statusCode).toBe(400);
      expect(json(created)).toMatchObject({ code: 'rest_invalid_param', data: { params: { password: expect.any(String) } } });
      const bySlug = await t.app.inject({ method: 'PATCH', url: `${API}/events/by-slug/${lockedSlug}`, headers: EDITOR, payload: { password: 'another' } });
      expect(bySlug.statusCode).toBe(400);

      const target = (await createEventOk(t.app, soon(6, { title: 'Soon locked' }))).id as number;
      const responses = [
        await t.app.inject({ method: 'PATCH', url: `${API}/events/${target}`, headers: EDITOR, payload: { password: PASSWORD } }),
        await t.app.inject({
          method: 'PUT',
          url: `${API}/events/${target}`,
          headers: { ...EDITOR, 'content-type': 'application/x-www-form-urlencoded' },
          payload: `password=${PASSWORD}&title=Still+locked`,
        }),
        await get(`/events/${target}?context=edit`, EDITOR),
        await get(`/events/${target}?password=${PASSWORD}`),
        await get(`/events?per_page=50&context=edit&password=${PASSWORD}`, EDITOR),
        await get(`/events?per_page=50&password=${PASSWORD}`),
        await t.app.inject({ method: 'DELETE', url: `${API}/events/${target}?password=${PASSWORD}`, headers: EDITOR }),
      ];
      for (const response of responses) {
        expect(response.statusCode).toBeLessThan(300);
        const text = `${response.body}\n${JSON.stringify(response.headers)}`;
        expect(text).not.toContain(PASSWORD);
        expect(text).not.toContain(OTHER_PASSWORD);
        expect(text).not.toMatch(/"password"\s*:/);
      }
      // `""` removes the password.
      const open = (await createEventOk(t.app, soon(7, { title: 'Briefly locked' }))).id as number;
      await t.app.inject({ method: 'PATCH', url: `${API}/events/${open}`, headers: EDITOR, payload: { password: PASSWORD } });
      expect((await get(`/events/${open}`)).statusCode).toBe(403);
      expect((await t.app.inject({ method: 'PATCH', url: `${API}/events/${open}`, headers: EDITOR, payload: { password: '' } })).statusCode).toBe(200);
      expect((await get(`/events/${open}`)).statusCode).toBe(200);
    });
  });

  describe('rate limiting', () => {
    const opened: TestApp[] = [];
    const open = async (env: Record<string, string>) => {
      const app = await openTestApp(engine, env);
      opened.push(app);
      return app;
    };
    afterAll(async () => {
      for (const app of opened) await app.close();
    });
    const read = (t: TestApp, headers: Headers = {}, extra: { remoteAddress?: string } = {}) =>
      t.app.inject({ method: 'GET', url: `${API}/events`, headers, ...extra });
    const write = (t: TestApp, headers: Headers = EDITOR) =>
      t.app.inject({ method: 'POST', url: `${API}/venues`, headers, payload: { venue: `Rate hall ${Math.random()}` } });

    it('is off by default in tests', async () => {
      const t = await open({});
      for (let i = 0; i < 25; i++) {
        const response = await read(t);
        expect(response.statusCode).toBe(200);
        expect(response.headers['ratelimit-limit']).toBeUndefined();
      }
    });

    it('answers the 4th read of RATE_LIMIT_READS=3 with 429 in the error shape, with Retry-After and RateLimit-* headers', async () => {
      const t = await open({ RATE_LIMIT_READS: '3' });
      for (const remaining of [2, 1, 0]) {
        const response = await read(t);
        expect(response.statusCode).toBe(200);
        expect(response.headers['ratelimit-limit']).toBe('3');
        expect(response.headers['ratelimit-remaining']).toBe(String(remaining));
        const reset = Number(response.headers['ratelimit-reset']);
        expect(reset).toBeGreaterThan(0);
        expect(reset).toBeLessThanOrEqual(60);
      }
      const refused = await read(t);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['content-type']).toContain('application/json');
      expect(json(refused)).toEqual({ code: 'rest_too_many_requests', message: expect.any(String), data: { status: 429 } });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-limit']).toBe('3');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThan(0);
      // Every read route shares the budget.
      expect((await t.app.inject({ method: 'GET', url: `${API}/categories` })).statusCode).toBe(429);
    });

    it('counts reads and writes separately', async () => {
      const t = await open({ RATE_LIMIT_TOKEN_READS: '3', RATE_LIMIT_TOKEN_WRITES: '2' });
      for (let i = 0; i < 3; i++) expect((await read(t, EDITOR)).statusCode).toBe(200);
      expect((await read(t, EDITOR)).statusCode).toBe(429);
      const first = await write(t);
      expect(first.statusCode).toBe(201);
      expect(first.headers['ratelimit-limit']).toBe('2');
      expect(first.headers['ratelimit-remaining']).toBe('1');
      expect((await write(t)).statusCode).toBe(201);
      const refused = await write(t);
      expect(refused.statusCode).toBe(429);
      expect(json(refused)).toMatchObject({ code: 'rest_too_many_requests', data: { status: 429 } });
      expect(refused.headers['retry-after']).toBeDefined();
      expect((await read(t, EDITOR)).statusCode).toBe(429);
    });

    it('gives each token its own budget, apart from the address it comes from', async () => {
      const t = await open({ RATE_LIMIT_READS: '2', RATE_LIMIT_TOKEN_READS: '2' });
      for (let i = 0; i < 2; i++) expect((await read(t)).statusCode).toBe(200);
      expect((await read(t)).statusCode).toBe(429);
      // Same address, with tokens: separate budgets, one per token.
      for (let i = 0; i < 2; i++) expect((await read(t, VIEWER)).statusCode).toBe(200);
      expect((await read(t, VIEWER)).statusCode).toBe(429);
      expect((await read(t, { authorization: `bearer ${VIEWER_TOKEN}` })).statusCode).toBe(429);
      for (let i = 0; i < 2; i++) expect((await read(t, EDITOR)).statusCode).toBe(200);
      expect((await read(t, EDITOR)).statusCode).toBe(429);
      // A token's budget follows it to another address.
      expect((await read(t, VIEWER, { remoteAddress: '198.51.100.7' })).statusCode).toBe(429);
      // Anonymous callers are counted per address.
      expect((await read(t, {}, { remoteAddress: '198.51.100.7' })).statusCode).toBe(200);
    });

    it('keys anonymous callers by X-Forwarded-For only with TRUST_PROXY', async () => {
      const trusting = await open({ RATE_LIMIT_READS: '2', TRUST_PROXY: 'true' });
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      for (let i = 0; i < 2; i++) expect((await read(trusting, from('203.0.113.1'))).statusCode).toBe(200);
      expect((await read(trusting, from('203.0.113.1'))).statusCode).toBe(429);
      expect((await read(trusting, from('203.0.113.2'))).statusCode).toBe(200);

      const direct = await open({ RATE_LIMIT_READS: '2' });
      for (let i = 0; i < 2; i++) expect((await read(direct, from('203.0.113.1'))).statusCode).toBe(200);
      // The header is ignored: the same connection address is out of budget, whatever it claims.
      expect((await read(direct, from('203.0.113.2'))).statusCode).toBe(429);
      expect((await read(direct, from('203.0.113.3'))).statusCode).toBe(429);
    });

    it('never limits the health routes', async () => {
      const t = await open({ RATE_LIMIT_READS: '1' });
      expect((await read(t)).statusCode).toBe(200);
      expect((await read(t)).statusCode).toBe(429);
      for (let i = 0; i < 10; i++) {
        for (const url of ['/health/live', '/health/ready']) {
          const response = await t.app.inject({ method: 'GET', url });
          expect(response.statusCode).toBe(200);
          expect(response.headers['ratelimit-limit']).toBeUndefined();
        }
      }
    });
  });

  describe('CORS', () => {
    // One app per configuration: no test here changes what another one is answered.
    const opened = new Map<string, Promise<TestApp>>();
    afterAll(async () => {
      for (const app of opened.values()) await (await app).close();
    });
    const open = (env: Record<string, string>) => {
      const key = JSON.stringify(env);
      if (!opened.has(key)) opened.set(key, openTestApp(engine, env));
      return opened.get(key)!;
    };
    const preflight = (t: TestApp, origin: string, url = `${API}/events`) =>
      t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'Authorization, Content-Type' },
      });
    const corsHeaders = (response: LightMyRequestResponse) => Object.keys(response.headers).filter((h) => h.startsWith('access-control-'));
    const list = (value: unknown) =>
      String(value)
        .split(',')
        .map((s) => s.trim().toLowerCase());

    it('grants the allowlisted origin: preflight 204 with every method and Authorization; the paging headers exposed', async () => {
      const t = await open({ CORS_ORIGINS: 'https://app.example' });
      for (const url of [`${API}/events`, `${API}/events/1`, `${API}/venues/by-slug/x`, `${API}/categories/3`]) {
        const response = await preflight(t, 'https://app.example', url);
        expect(response.statusCode, url).toBe(204);
        expect(response.headers['access-control-allow-origin']).toBe('https://app.example');
        expect(list(response.headers['access-control-allow-methods'])).toEqual(
          expect.arrayContaining(['get', 'head', 'post', 'put', 'patch', 'delete', 'options']),
        );
        expect(list(response.headers['access-control-allow-headers'])).toContain('authorization');
      }
      await createEventOk(t.app, soon(3));
      const actual = await t.app.inject({ method: 'GET', url: `${API}/events`, headers: { origin: 'https://app.example' } });
      expect(actual.statusCode).toBe(200);
      expect(actual.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(list(actual.headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(['x-tec-total', 'x-tec-totalpages', 'link']));
      expect(actual.headers['x-tec-total']).toBe('1');
      // An OPTIONS that is not a preflight (no origin, or no requested method) has no route.
      for (const headers of [{}, { origin: 'https://app.example' }]) {
        const plain = await t.app.inject({ method: 'OPTIONS', url: `${API}/events/1`, headers });
        expect(plain.statusCode).toBe(404);
        expect(json(plain)).toMatchObject({ code: 'rest_no_route', data: { status: 404 } });
        expect(corsHeaders(plain)).toEqual([]);
      }
    });

    it('gives another origin no grant', async () => {
      const t = await open({ CORS_ORIGINS: 'https://app.example' });
      for (const origin of ['https://evil.example', 'https://app.example.evil.example', 'http://app.example', 'null']) {
        const pre = await preflight(t, origin);
        expect(pre.headers['access-control-allow-origin'], origin).toBeUndefined();
        const actual = await t.app.inject({ method: 'GET', url: `${API}/events`, headers: { origin } });
        expect(actual.headers['access-control-allow-origin'], origin).toBeUndefined();
        expect(actual.headers['access-control-allow-credentials'], origin).toBeUndefined();
      }
    });

    it('sends no CORS headers at all by default', async () => {
      const t = await open({});
      const pre = await preflight(t, 'https://app.example');
      expect(pre.statusCode).toBe(404);
      expect(json(pre)).toMatchObject({ code: 'rest_no_route', data: { status: 404 } });
      expect(corsHeaders(pre)).toEqual([]);
      const actual = await t.app.inject({ method: 'GET', url: `${API}/events`, headers: { origin: 'https://app.example' } });
      expect(actual.statusCode).toBe(200);
      expect(corsHeaders(actual)).toEqual([]);
    });
  });

  describe('logging', () => {
    /** Builds the app with the given logger, as src/server.ts does, capturing every line written. */
    async function withCapturedLogs(make: (stream: Writable) => unknown, run: (t: TestApp) => Promise<void>): Promise<string> {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          lines.push(chunk.toString());
          callback();
        },
      });
      const config = loadConfig({
        API_TOKENS: `editor:${EDITOR_TOKEN},viewer:${VIEWER_TOKEN}:7`,
        RATE_LIMIT_READS: '0',
        RATE_LIMIT_WRITES: '0',
        LOG_LEVEL: 'info',
      });
      const storage = await engine.open();
      const app = buildApp({ config, storage, logger: make(stream) as never });
      const t: TestApp = {
        app,
        storage,
        async close() {
          await app.close();
          await storage.close();
        },
      };
      try {
        await app.ready();
        await run(t);
      } finally {
        await t.close();
      }
      return lines.join('');
    }

    const traffic = async (t: TestApp) => {
      const id = (await createEventOk(t.app, soon(3, { title: 'Logged gala' }))).id as number;
      const requests = [
        { method: 'PATCH' as const, url: `${API}/events/${id}`, headers: EDITOR, payload: { password: PASSWORD } },
        {
          method: 'PUT' as const,
          url: `${API}/events/${id}`,
          headers: { ...EDITOR, 'content-type': 'application/x-www-form-urlencoded' },
          payload: `password=${PASSWORD}`,
        },
        {
          method: 'PATCH' as const,
          url: `${API}/events/${id}`,
          headers: { ...EDITOR, 'content-type': 'application/json' },
          payload: `{"password": "${PASSWORD}",`,
        },
        {
          method: 'PATCH' as const,
          url: `${API}/events/${id}`,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ password: PASSWORD }),
        },
        { method: 'GET' as const, url: `${API}/events/${id}?password=${PASSWORD}` },
        { method: 'GET' as const, url: `${API}/events/${id}?context=view&password=${PASSWORD}&x=1` },
        { method: 'GET' as const, url: `${API}/events/${id}?pass%77ord=${PASSWORD}` },
        { method: 'GET' as const, url: `${API}/events/${id}?password[]=${PASSWORD}` },
        { method: 'GET' as const, url: `${API}/events?password=${encodeURIComponent(PASSWORD)}&search=gala` },
        { method: 'GET' as const, url: `${API}/events?password=${OTHER_PASSWORD}` },
        { method: 'DELETE' as const, url: `${API}/events/${id}?password=${PASSWORD}`, headers: VIEWER },
        { method: 'GET' as const, url: `${API}/events?token=${EDITOR_TOKEN}` },
        { method: 'GET' as const, url: `${API}/events?access_token=${VIEWER_TOKEN}` },
        { method: 'GET' as const, url: `${API}/events`, headers: VIEWER },
        { method: 'GET' as const, url: `${API}/events`, headers: { authorization: `Bearer ${EDITOR_TOKEN}x` } },
        { method: 'GET' as const, url: `${API}/events`, headers: { authorization: `Basic ${Buffer.from(`editor:${EDITOR_TOKEN}`).toString('base64')}` } },
        { method: 'GET' as const, url: `${API}/nowhere?password=${PASSWORD}`, headers: EDITOR },
        { method: 'DELETE' as const, url: `${API}/events/${id}`, headers: EDITOR },
      ];
      for (const request of requests) await t.app.inject(request);
    };
    const secrets = [
      PASSWORD,
      encodeURIComponent(PASSWORD),
      OTHER_PASSWORD,
      EDITOR_TOKEN,
      VIEWER_TOKEN,
      Buffer.from(`editor:${EDITOR_TOKEN}`).toString('base64'),
    ];

    it.each([
      ['a pino logger instance', (stream: Writable) => pino({ level: 'info' }, stream)],
      ['Fastify logger options', (stream: Writable) => ({ level: 'info', stream })],
    ])('never writes a token or a password to the log (%s)', async (_name, make) => {
      const log = await withCapturedLogs(make, traffic);
      // The log is there and records the requests, with the secret query values masked.
      expect(log).toContain('incoming request');
      expect(log).toContain(`${API}/events/`);
      expect(log).toContain('[redacted]');
      for (const secret of secrets) expect(log).not.toContain(secret);
    });
  });
});

// Keeps the store helpers honest: a refused write leaves the counts as they were.
describe.each(engines)('$name engine: refused writes store nothing', (engine) => {
  it('anonymous and viewer creates with every resource leave every collection unchanged', async () => {
    const t = await openTestApp(engine);
    try {
      const before = await countAll(t.storage);
      for (const [path, payload] of [
        ['events', makeEventInput()],
        ['venues', { venue: 'Nope' }],
        ['organizers', { organizer: 'Nope' }],
        ['categories', { name: 'Nope' }],
        ['tags', { name: 'Nope' }],
      ] as const) {
        for (const [headers, status] of [
          [{}, 401],
          [VIEWER, 403],
        ] as const) {
          const response = await t.app.inject({ method: 'POST', url: `${API}/${path}`, headers, payload });
          expect(response.statusCode, path).toBe(status);
          expect(json(response), path).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status } });
        }
      }
      expect(await countAll(t.storage)).toEqual(before);
    } finally {
      await t.close();
    }
  });
});
