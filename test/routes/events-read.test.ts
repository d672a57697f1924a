/**
 * GET /events/{id} and /events/by-slug/{slug}: the single representation with json_ld
 *, not-found and no-route answers, language roots,
 * visibility of unpublished events and password protection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  EDITOR,
  EDITOR_TOKEN,
  type TestApp,
  VIEWER,
  createEventOk,
  insertCategory,
  insertOrganizer,
  insertTag,
  insertVenue,
  json,
  openTestApp,
} from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;

describe.each(engines)('$name engine: reading single events', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  describe('by id and by slug', () => {
    it('answers 200 with json_ld, the linked venue and organizer, and the extension fields after json_ld', async () => {
      const venue = await insertVenue(t.storage, { name: 'Old Town Hall', nameKey: 'old town hall', slug: 'old-town-hall', location: null, geoSource: null });
      const organizer = await insertOrganizer(t.storage, { name: 'Music Friends', nameKey: 'music friends', slug: 'music-friends' });
      const category = await insertCategory(t.storage);
      const tag = await insertTag(t.storage);
      const created = await createEventOk(t.app, {
        title: 'Chamber Evening',
        excerpt: 'Strings and more',
        timezone: 'America/New_York',
        start_date: '2030-12-21 18:00:00',
        end_date: '2030-12-21 21:30:00',
        cost: '23',
        venue: venue._id,
        organizer: [organizer._id],
        categories: [category._id],
        tags: [tag._id],
      });
      const id = created.id as number;

      const response = await get(`${API}/events/${id}`);
      expect(response.statusCode).toBe(200);
      const body = json(response);
      const keys = Object.keys(body);
      expect(keys.slice(-4)).toEqual(['custom_fields', 'json_ld', 'ticketed', 'post_parent']);
      // Apart from the json_ld members, the single read is the create's representation.
      const { json_ld: jsonLd, ...rest } = body;
      const { json_ld: venueLd, ...venueRest } = rest.venue as Body;
      const organizersRest = (rest.organizer as Body[]).map(({ json_ld: _ld, ...o }) => o);
      expect({ ...rest, venue: venueRest, organizer: organizersRest }).toEqual(created);
      expect(venueLd).toBeDefined();

      expect(jsonLd).toMatchObject({
        '@context': 'http://schema.org',
        '@type': 'Event',
        name: 'Chamber Evening',
        description: expect.stringContaining('&lt;p&gt;Strings and more&lt;/p&gt;'),
        url: 'http://localhost:80/event/chamber-evening/',
        startDate: '2030-12-21T18:00:00-05:00',
        endDate: '2030-12-21T21:30:00-05:00',
        location: { '@type': 'Place', name: 'Old Town Hall' },
        organizer: { '@type': 'Person', name: 'Music Friends' },
        offers: { '@type': 'Offer', price: '23', url: 'http://localhost:80/event/chamber-evening/' },
      });

      // Single reads embed the venue and organizers with their own json_ld (sample 28).
      const venueOut = body.venue as Body;
      expect(venueOut.json_ld).toMatchObject({ '@type': 'Place', name: 'Old Town Hall' });
      const venueKeys = Object.keys(venueOut);
      expect(venueKeys.slice(-6)).toEqual(['website', 'json_ld', 'show_map', 'show_map_link', 'global_id', 'global_id_lineage']);
      const [organizerOut] = body.organizer as Body[];
      expect(organizerOut?.json_ld).toMatchObject({ '@type': 'Person', name: 'Music Friends' });
      expect(Object.keys(organizerOut as Body).slice(-3)).toEqual(['json_ld', 'global_id', 'global_id_lineage']);
    });

    it('answers the same event by slug', async () => {
      const created = await createEventOk(t.app, { title: 'Slug Reader' });
      const byId = json(await get(`${API}/events/${created.id as number}`));
      const response = await get(`${API}/events/by-slug/slug-reader`);
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual(byId);
      expect(byId.json_ld).toMatchObject({ '@type': 'Event', name: 'Slug Reader' });
      // Without a venue or organizer there is no location or organizer in json_ld.
      expect(byId.json_ld).not.toHaveProperty('location');
      expect(byId.json_ld).not.toHaveProperty('organizer');
    });

    it('accepts a trailing slash and leading zeros in the id', async () => {
      const created = await createEventOk(t.app, { title: 'Path forms' });
      const id = created.id as number;
      expect((await get(`${API}/events/${id}/`)).statusCode).toBe(200);
      const padded = await get(`${API}/events/000${id}`);
      expect(padded.statusCode).toBe(200);
      expect(json(padded).id).toBe(id);
    });

    it('answers HEAD like GET, without a body', async () => {
      const created = await createEventOk(t.app, { title: 'Head check' });
      const url = `${API}/events/${created.id as number}`;
      const got = await get(url);
      const head = await t.app.inject({ method: 'HEAD', url });
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['content-type']).toBe(got.headers['content-type']);
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(got.body)));

      const missing = await t.app.inject({ method: 'HEAD', url: `${API}/events/987654` });
      expect(missing.statusCode).toBe(404);
      expect(missing.body).toBe('');
    });
  });

  describe('not found and no route', () => {
    it('answers an unknown id with 404 rest-event-not-found', async () => {
      const response = await get(`${API}/events/99999999`);
      expect(response.statusCode).toBe(404);
      expect(json(response)).toEqual({ code: 'rest-event-not-found', message: 'Event with ID 99999999 does not exist.', data: { status: 404 } });
    });

    it('answers /events/0 with 404 rest-event-not-found', async () => {
      const response = await get(`${API}/events/0`);
      expect(response.statusCode).toBe(404);
      expect(json(response)).toEqual({ code: 'rest-event-not-found', message: 'Event with ID 0 does not exist.', data: { status: 404 } });
    });

    it('answers an unknown slug with 404 rest-event-not-found', async () => {
      const response = await get(`${API}/events/by-slug/no-such-event`);
      expect(response.statusCode).toBe(404);
      expect(json(response)).toMatchObject({ code: 'rest-event-not-found', data: { status: 404 } });
    });

    it.each([`${API}/events/abc`, `${API}/events/by-slug/`, `${API}/events/1.5`, `${API}/events/-1`, `${API}/nothing-here`, '/calendar/events/v2/events/1'])(
      'answers %s with 404 rest_no_route',
      async (url) => {
        const response = await get(url);
        expect(response.statusCode).toBe(404);
        expect(json(response)).toEqual({
          code: 'rest_no_route',
          message: 'No route was found matching the URL and request method.',
          data: { status: 404 },
        });
      },
    );

    it.each(['9007199254740993', '99999999999999999999999'])('refuses the id %s (beyond 2^53) with 400 naming id', async (id) => {
      const response = await get(`${API}/events/${id}`);
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { id: expect.any(String) } } });
    });

    it.each([
      { method: 'TRACE', url: `${API}/events/1` },
      { method: 'OPTIONS', url: `${API}/events/1` },
      { method: 'PUT', url: `${API}/events` },
      { method: 'DELETE', url: `${API}/events` },
      { method: 'PATCH', url: `${API}/events` },
    ] as const)('answers $method $url with 404 rest_no_route', async ({ method, url }) => {
      const response = await t.app.inject({ method, url, headers: EDITOR });
      expect(response.statusCode).toBe(404);
      expect(json(response)).toMatchObject({ code: 'rest_no_route', data: { status: 404 } });
    });

    it('never writes through a GET, whatever the method-override hints say', async () => {
      const created = await createEventOk(t.app, { title: 'No override' });
      const url = `${API}/events/${created.id as number}?_method=DELETE`;
      const response = await t.app.inject({ method: 'GET', url, headers: { ...EDITOR, 'x-http-method-override': 'DELETE' } });
      expect(response.statusCode).toBe(200);
      expect(json(response).status).toBe('publish');
      expect((await t.storage.events.findById(created.id as number))?.status).toBe('publish');
    });
  });

  describe('language roots', () => {
    it.each(['/en', '/de', '/fr'])('serves %s with links under that root', async (root) => {
      const category = await insertCategory(t.storage);
      const created = await createEventOk(t.app, { title: `Root ${root.slice(1)}`, categories: [category._id] });
      const id = created.id as number;
      const response = await get(`${root}${API}/events/${id}`);
      expect(response.statusCode).toBe(200);
      const body = json(response);
      expect(body.rest_url).toBe(`http://localhost:80${root}${API}/events/${id}`);
      expect((body.categories as Array<{ urls: { self: string } }>)[0]?.urls.self).toBe(`http://localhost:80${root}${API}/categories/${category._id}`);
      // Permalinks do not depend on the language root.
      expect(body.url).toBe(created.url);

      const bySlug = await get(`${root}${API}/events/by-slug/${created.slug as string}`);
      expect(bySlug.statusCode).toBe(200);
      expect(json(bySlug).rest_url).toBe(body.rest_url);

      const missing = await get(`${root}${API}/events/987654321`);
      expect(missing.statusCode).toBe(404);
      expect(json(missing).code).toBe('rest-event-not-found');
    });

    it('creates under a language root too, answering with links under it', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: `/fr${API}/events`,
        headers: EDITOR,
        payload: { title: 'Soirée', start_date: '2030-03-01 20:00:00', end_date: '2030-03-01 22:00:00' },
      });
      expect(response.statusCode).toBe(201);
      const body = json(response);
      expect(body.rest_url).toBe(`http://localhost:80/fr${API}/events/${body.id as number}`);
    });

    it('has no other roots', async () => {
      const created = await createEventOk(t.app);
      const response = await get(`/es${API}/events/${created.id as number}`);
      expect(response.statusCode).toBe(404);
      expect(json(response).code).toBe('rest_no_route');
    });
  });

  describe('links', () => {
    const forwarded = { host: 'inner:3000', 'x-forwarded-host': 'public.example', 'x-forwarded-proto': 'https' };

    it('ignores X-Forwarded-* headers unless TRUST_PROXY is set', async () => {
      const created = await createEventOk(t.app, { title: 'Forwarded' });
      const body = json(await get(`${API}/events/${created.id as number}`, forwarded));
      expect(body.rest_url).toBe(`http://inner:3000${API}/events/${created.id as number}`);
      expect(body.url).toBe('http://inner:3000/event/forwarded/');
    });

    it('honours X-Forwarded-* with TRUST_PROXY, and builds permalinks from PUBLIC_URL', async () => {
      const proxied = await openTestApp(engine, { TRUST_PROXY: 'true', PUBLIC_URL: 'https://www.example.org/site/' });
      try {
        const created = await proxied.app.inject({
          method: 'POST',
          url: `${API}/events`,
          headers: { ...EDITOR, ...forwarded },
          payload: { title: 'Proxied', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' },
        });
        expect(created.statusCode).toBe(201);
        const id = json(created).id as number;
        const body = json(await proxied.app.inject({ method: 'GET', url: `/de${API}/events/${id}`, headers: forwarded }));
        expect(body).toMatchObject({
          rest_url: `https://public.example/de${API}/events/${id}`,
          url: 'https://www.example.org/site/event/proxied/',
          website: 'https://www.example.org/site/event/proxied/',
          global_id: `www.example.org/site?id=${id}`,
        });
        expect((body.json_ld as Body).url).toBe('https://www.example.org/site/event/proxied/');
      } finally {
        await proxied.close();
      }
    });
  });

  describe('visibility', () => {
    it('hides a draft from anonymous callers (403 event-not-accessible) and shows it to the viewer and the editor', async () => {
      const draft = await createEventOk(t.app, { title: 'Draft plans', status: 'draft' });
      expect(draft.status).toBe('draft');
      const id = draft.id as number;

      const anonymous = await get(`${API}/events/${id}`);
      expect(anonymous.statusCode).toBe(403);
      expect(json(anonymous)).toEqual({ code: 'event-not-accessible', message: 'The requested event is not accessible', data: { status: 403 } });
      const anonymousBySlug = await get(`${API}/events/by-slug/draft-plans`);
      expect(anonymousBySlug.statusCode).toBe(403);
      expect(json(anonymousBySlug).code).toBe('event-not-accessible');

      for (const headers of [VIEWER, EDITOR]) {
        const response = await get(`${API}/events/${id}`, headers);
        expect(response.statusCode).toBe(200);
        expect(json(response)).toMatchObject({ id, status: 'draft' });
      }
    });

    it.each(['pending', 'private'])('hides a %s event from anonymous callers', async (status) => {
      const created = await createEventOk(t.app, { status });
      const response = await get(`${API}/events/${created.id as number}`);
      expect(response.statusCode).toBe(403);
      expect(json(response).code).toBe('event-not-accessible');
      expect((await get(`${API}/events/${created.id as number}`, VIEWER)).statusCode).toBe(200);
    });

    it('shows a future event whose date has passed as published', async () => {
      const created = await createEventOk(t.app, { status: 'future', date_utc: '2020-01-01 10:00:00' });
      const response = await get(`${API}/events/${created.id as number}`);
      expect(response.statusCode).toBe(200);
      expect(json(response).status).toBe('publish');
    });

    it('schedules an event published with a future date, hiding it from anonymous callers until then', async () => {
      const created = await createEventOk(t.app, { date_utc: '2099-01-01 10:00:00' });
      expect(created.status).toBe('future');
      const id = created.id as number;
      const anonymous = await get(`${API}/events/${id}`);
      expect(anonymous.statusCode).toBe(403);
      expect(json(anonymous).code).toBe('event-not-accessible');
      const viewer = await get(`${API}/events/${id}`, VIEWER);
      expect(viewer.statusCode).toBe(200);
      expect(json(viewer).status).toBe('future');

      const explicit = await createEventOk(t.app, { status: 'future', date: '2099-01-01 10:00:00' });
      expect((await get(`${API}/events/${explicit.id as number}`)).statusCode).toBe(403);
    });
  });

  describe('password protection', () => {
    const SECRET = 'open-sesame-42';

    async function protectedEvent(title: string): Promise<number> {
      const created = await createEventOk(t.app, { title });
      const id = created.id as number;
      const response = await t.app.inject({ method: 'PATCH', url: `${API}/events/${id}`, headers: EDITOR, payload: { password: SECRET } });
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toContain(SECRET);
      return id;
    }

    it('refuses anonymous reads without the right password and never shows the password', async () => {
      const id = await protectedEvent('Secret Gig');
      const bodies: string[] = [];

      const anonymous = await get(`${API}/events/${id}`);
      bodies.push(anonymous.body);
      expect(anonymous.statusCode).toBe(403);
      expect(json(anonymous)).toEqual({
        code: 'event-password-protected',
        message: 'The requested event is not accessible without a password',
        data: { status: 403 },
      });

      const wrong = await get(`${API}/events/${id}?password=nope`);
      bodies.push(wrong.body);
      expect(wrong.statusCode).toBe(403);
      expect(json(wrong).code).toBe('event-password-protected');

      const right = await get(`${API}/events/${id}?password=${SECRET}`);
      bodies.push(right.body);
      expect(right.statusCode).toBe(200);
      expect(json(right)).toMatchObject({ id, title: 'Secret Gig' });

      const bySlug = await get(`${API}/events/by-slug/secret-gig?password=${SECRET}`);
      bodies.push(bySlug.body);
      expect(bySlug.statusCode).toBe(200);
      const bySlugWithout = await get(`${API}/events/by-slug/secret-gig`);
      expect(bySlugWithout.statusCode).toBe(403);
      expect(json(bySlugWithout).code).toBe('event-password-protected');

      // An empty password is not a password.
      const empty = await get(`${API}/events/${id}?password=`);
      expect(empty.statusCode).toBe(400);
      expect(json(empty)).toMatchObject({ code: 'rest_invalid_param', data: { params: { password: expect.any(String) } } });

      for (const body of bodies) expect(body).not.toContain(SECRET);
      const stored = await t.storage.events.findById(id);
      expect(stored?.password).toBe(SECRET);
    });

    it('lets the editor read it with context=edit, but not without a password otherwise', async () => {
      const id = await protectedEvent('Editor View');
      const edit = await get(`${API}/events/${id}?context=edit`, EDITOR);
      expect(edit.statusCode).toBe(200);
      expect(edit.body).not.toContain(SECRET);
      expect(json(edit)).toMatchObject({ id, title: 'Editor View' });

      const plain = await get(`${API}/events/${id}`, EDITOR);
      expect(plain.statusCode).toBe(403);
      expect(json(plain).code).toBe('event-password-protected');
      const withPassword = await get(`${API}/events/${id}?password=${SECRET}`, EDITOR);
      expect(withPassword.statusCode).toBe(200);

      // context=edit does nothing for anonymous callers.
      const anonymousEdit = await get(`${API}/events/${id}?context=edit`);
      expect(anonymousEdit.statusCode).toBe(403);
    });

    it('keeps the password out of update and delete answers', async () => {
      const id = await protectedEvent('Quiet Update');
      const update = await t.app.inject({ method: 'PATCH', url: `${API}/events/${id}`, headers: EDITOR, payload: { title: 'Quiet Update 2' } });
      expect(update.statusCode).toBe(200);
      expect(update.body).not.toContain(SECRET);
      expect(update.body).not.toContain('password');
      const trashed = await t.app.inject({ method: 'DELETE', url: `${API}/events/${id}`, headers: EDITOR });
      expect(trashed.statusCode).toBe(200);
      expect(trashed.body).not.toContain(SECRET);
    });

    it('removes the protection with password ""', async () => {
      const id = await protectedEvent('Open Again');
      const response = await t.app.inject({ method: 'PATCH', url: `${API}/events/${id}`, headers: EDITOR, payload: { password: '' } });
      expect(response.statusCode).toBe(200);
      const anonymous = await get(`${API}/events/${id}`);
      expect(anonymous.statusCode).toBe(200);
      expect(json(anonymous).json_ld).toMatchObject({ '@type': 'Event' });
      expect((await t.storage.events.findById(id))?.password).toBeNull();
    });
  });

  it('never echoes the bearer token', async () => {
    const created = await createEventOk(t.app);
    for (const url of [`${API}/events/${created.id as number}`, `${API}/events/987654`, `${API}/nothing`]) {
      const response = await get(url, EDITOR);
      expect(response.body).not.toContain(EDITOR_TOKEN);
      expect(JSON.stringify(response.headers)).not.toContain(EDITOR_TOKEN);
    }
  });
});
