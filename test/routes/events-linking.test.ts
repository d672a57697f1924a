/**
 * Venues and organizers in event writes (EventInsertionCest L769–L1121,
 * EventUpdateCest L832–L1292): by id, by `{id}`, or created from nested objects (with the
 * de-duplication of POST /venues, which never changes the matched record), unlinking, all-or-nothing writes,
 * the embedding visibility and concurrent nested creations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  EDITOR,
  EDITOR_TOKEN,
  type TestApp,
  VIEWER,
  VIEWER_AUTHOR_ID,
  VIEWER_TOKEN,
  countAll,
  insertCategory,
  insertOrganizer,
  insertTag,
  insertVenue,
  json,
  makeEventInput,
  openTestApp,
  snapshot,
} from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { slowEngine } from '../helpers/latency.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type ErrorBody = { code: string; message: string; data: { status: number; params?: Record<string, string> | string[] } };

const ENV = {
  API_TOKENS: `editor:${EDITOR_TOKEN}:1,viewer:${VIEWER_TOKEN}:${VIEWER_AUTHOR_ID}`,
  PUBLIC_URL: 'http://127.0.0.1:8080',
};
const SITE = 'http://127.0.0.1:8080';
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** The embedded venue of sample 11 (name and city only): every empty member dropped. */
const SAMPLE_11_VENUE_KEYS = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'venue',
  'slug',
  'city',
  'show_map',
  'show_map_link',
  'global_id',
  'global_id_lineage',
];
const SAMPLE_11_ORGANIZER_KEYS = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'organizer',
  'slug',
  'email',
  'global_id',
  'global_id_lineage',
];

describe.each(engines)('$name engine: venues and organizers in event writes', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, ENV);
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = (overrides: Body, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method: 'POST', url: `${API}/events`, headers, payload: makeEventInput(overrides) });
  const update = (id: number, payload: Body, method: 'POST' | 'PUT' | 'PATCH' = 'POST') =>
    t.app.inject({ method, url: `${API}/events/${id}`, headers: EDITOR, payload });
  const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `${API}${path}`, headers });

  async function createOk(overrides: Body): Promise<Body> {
    const response = await create(overrides);
    expect(response.statusCode, response.body).toBe(201);
    return json(response);
  }
  async function updateOk(id: number, payload: Body, method: 'POST' | 'PUT' | 'PATCH' = 'POST'): Promise<Body> {
    const response = await update(id, payload, method);
    expect(response.statusCode, response.body).toBe(200);
    return json(response);
  }
  const organizerIds = (event: Body) => (event.organizer as Body[]).map((o) => o.id);
  const venueId = (event: Body) => (Array.isArray(event.venue) ? null : (event.venue as Body).id);

  describe('nested creation (sample 11, EventInsertionCest L866, L978–L1070)', () => {
    it('creates the venue and organizer of sample 11 and embeds them in the sample’s shapes', async () => {
      await insertCategory(t.storage, { name: 'Inline Category mwpwdya6', nameKey: 'inline category mwpwdya6', slug: 'inline-category-mwpwdya6' });
      await insertTag(t.storage, { name: 'inline-tag-mwpwdya6', nameKey: 'inline-tag-mwpwdya6', slug: 'inline-tag-mwpwdya6' });
      const before = await countAll(t.storage);
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: EDITOR,
        payload: {
          title: 'Peer Second mwpwdya6',
          start_date: '2027-01-05 09:00:00',
          end_date: '2027-01-05 17:00:00',
          all_day: true,
          venue: { venue: 'Inline Venue mwpwdya6', city: 'Inline City' },
          organizer: [{ organizer: 'Inline Org mwpwdya6', email: 'inline@example.test' }],
          categories: ['Inline Category mwpwdya6'],
          tags: ['inline-tag-mwpwdya6'],
        },
      });
      expect(response.statusCode, response.body).toBe(201);
      const body = json(response);
      expect(await countAll(t.storage)).toEqual({ ...before, events: before.events + 1, venues: before.venues + 1, organizers: before.organizers + 1 });

      const venue = body.venue as Body;
      expect(Object.keys(venue)).toEqual(SAMPLE_11_VENUE_KEYS);
      const venueIdValue = venue.id as number;
      expect(venue).toEqual({
        id: venueIdValue,
        author: '1',
        status: 'publish',
        date: expect.stringMatching(WALL_CLOCK),
        date_utc: expect.stringMatching(WALL_CLOCK),
        modified: expect.stringMatching(WALL_CLOCK),
        modified_utc: expect.stringMatching(WALL_CLOCK),
        url: `${SITE}/venue/inline-venue-mwpwdya6/`,
        venue: 'Inline Venue mwpwdya6',
        slug: 'inline-venue-mwpwdya6',
        city: 'Inline City',
        show_map: true,
        show_map_link: true,
        global_id: `127.0.0.1?id=${venueIdValue}`,
        global_id_lineage: [`127.0.0.1?id=${venueIdValue}`],
      });

      const organizers = body.organizer as Body[];
      expect(organizers).toHaveLength(1);
      const organizer = organizers[0] as Body;
      expect(Object.keys(organizer)).toEqual(SAMPLE_11_ORGANIZER_KEYS);
      const organizerId = organizer.id as number;
      expect(organizer).toEqual({
        id: organizerId,
        author: '1',
        status: 'publish',
        date: expect.stringMatching(WALL_CLOCK),
        date_utc: expect.stringMatching(WALL_CLOCK),
        modified: expect.stringMatching(WALL_CLOCK),
        modified_utc: expect.stringMatching(WALL_CLOCK),
        url: `${SITE}/organizer/inline-org-mwpwdya6/`,
        organizer: 'Inline Org mwpwdya6',
        slug: 'inline-org-mwpwdya6',
        email: 'inline@example.test',
        global_id: `127.0.0.1?id=${organizerId}`,
        global_id_lineage: [`127.0.0.1?id=${organizerId}`],
      });
      // Ids from the shared post sequence, the event's after its linked records (as in the sample).
      expect(venueIdValue).toBeLessThan(organizerId);
      expect(organizerId).toBeLessThan(body.id as number);
      // They are real records: the standalone reads agree with the embedded objects.
      const { json_ld: _v, ...standaloneVenue } = json(await get(`/venues/${venueIdValue}`));
      expect(standaloneVenue).toEqual(venue);
      const { json_ld: _o, ...standaloneOrganizer } = json(await get(`/organizers/${organizerId}`));
      expect(standaloneOrganizer).toEqual(organizer);
    });

    it('echoes every field of a nested venue (US: stateprovince = state; elsewhere: province)', async () => {
      const us = await createOk({
        title: 'US venue event',
        venue: {
          venue: 'Nested US',
          address: '1 Main St',
          city: 'Springfield',
          country: 'United States',
          state: 'IL',
          province: 'x',
          zip: '62701',
          phone: '555',
          website: 'http://us.example/',
        },
      });
      expect(us.venue).toMatchObject({
        venue: 'Nested US',
        address: '1 Main St',
        city: 'Springfield',
        country: 'United States',
        state: 'IL',
        province: 'x',
        zip: '62701',
        phone: '555',
        website: 'http://us.example/',
        stateprovince: 'IL',
        show_map: true,
        show_map_link: true,
      });
      const fr = await createOk({
        title: 'French venue event',
        venue: {
          venue: 'Théâtre imbriqué',
          city: 'Évry',
          country: 'France',
          province: 'Île-de-France',
          state: 'x',
          show_map: 'false',
          geo_lat: '48.6',
          geo_lng: '2.45',
        },
      });
      expect(fr.venue).toMatchObject({
        venue: 'Théâtre imbriqué',
        slug: 'theatre-imbrique',
        stateprovince: 'Île-de-France',
        show_map: false,
        geo_lat: 48.6,
        geo_lng: 2.45,
      });
    });

    it('creates several organizers in the order sent (L1005) with their images (L1072)', async () => {
      const body = await createOk({
        title: 'Three new organizers',
        venue: { venue: 'Image venue', image: 'https://img.example/venue.jpg' },
        organizer: [{ organizer: 'Organizer Z', image: 'https://img.example/z.png' }, { organizer: 'Organizer A' }, { organizer: 'Organizer M', phone: '123' }],
      });
      expect((body.organizer as Body[]).map((o) => o.organizer)).toEqual(['Organizer Z', 'Organizer A', 'Organizer M']);
      expect((body.organizer as Body[])[0]?.image).toEqual({ url: 'https://img.example/z.png', extension: 'png' });
      expect((body.venue as Body).image).toEqual({ url: 'https://img.example/venue.jpg', extension: 'jpg' });
    });

    it('mixes new and existing organizers, keeping the order and collapsing duplicates (L1035)', async () => {
      const [o1, o2] = [await insertOrganizer(t.storage), await insertOrganizer(t.storage)];
      const body = await createOk({
        title: 'Mixed organizers',
        organizer: [{ organizer: 'New A' }, { id: o1._id }, o2._id, { organizer: 'New C' }, String(o1._id), { id: o2._id }],
      });
      const organizers = body.organizer as Body[];
      expect(organizers.map((o) => o.organizer)).toEqual(['New A', o1.name, o2.name, 'New C']);
      expect(organizers[1]?.id).toBe(o1._id);
      expect(organizers[2]?.id).toBe(o2._id);
    });

    it('links a nested venue or organizer that matches an existing record, changing nothing in it', async () => {
      const venue = await insertVenue(t.storage, { name: 'Known Hall', city: 'Old city', phone: '1' });
      const organizer = await insertOrganizer(t.storage, { name: 'Known Org', email: 'old@example.org' });
      const before = await countAll(t.storage);
      const body = await createOk({
        title: 'Known places',
        venue: { venue: 'known hall', phone: '2', status: 'draft' },
        organizer: [{ organizer: 'KNOWN ORG', email: 'new@example.org', status: 'trash' }],
      });
      expect(await countAll(t.storage)).toEqual({ ...before, events: before.events + 1 });
      expect(body.venue).toMatchObject({ id: venue._id, venue: 'Known Hall', city: 'Old city', phone: '1', status: 'publish' });
      expect((body.organizer as Body[])[0]).toMatchObject({ id: organizer._id, organizer: 'Known Org', email: 'old@example.org', status: 'publish' });
      expect(await t.storage.venues.findById(venue._id)).toEqual(venue);
      expect(await t.storage.organizers.findById(organizer._id)).toEqual(organizer);
    });

    it('creates nested records with the status asked for, a draft included', async () => {
      const body = await createOk({
        title: 'Draft links',
        venue: { venue: 'Draft nested venue', status: 'draft' },
        organizer: [{ organizer: 'Draft nested org', status: 'draft' }],
      });
      expect(body.venue).toMatchObject({ status: 'draft' });
      expect((body.organizer as Body[])[0]).toMatchObject({ status: 'draft' });
    });

    it('creates and links a nested venue and organizers on update too (EventUpdateCest L931, L1017)', async () => {
      const event = await createOk({ title: 'Links later' });
      const before = await countAll(t.storage);
      const body = await updateOk(event.id as number, { venue: { venue: 'Update venue' }, organizer: [{ organizer: 'Update org' }] });
      expect(body.venue).toMatchObject({ venue: 'Update venue', slug: 'update-venue' });
      expect((body.organizer as Body[]).map((o) => o.organizer)).toEqual(['Update org']);
      expect(await countAll(t.storage)).toEqual({ ...before, venues: before.venues + 1, organizers: before.organizers + 1 });
    });
  });

  describe('linking existing records (L769, L918, L947; EventUpdateCest L832, L986)', () => {
    it('links a venue by id, numeric string, {id} with extra keys (ignored), or a one-item list', async () => {
      const venue = await insertVenue(t.storage, { city: 'Unchanged' });
      for (const value of [
        venue._id,
        String(venue._id),
        { id: venue._id, venue: 'Ignored name', city: 'Ignored city' },
        { id: String(venue._id) },
        [venue._id],
      ]) {
        const body = await createOk({ title: 'Venue by reference', venue: value });
        expect(venueId(body), JSON.stringify(value)).toBe(venue._id);
        expect(body.venue).toMatchObject({ city: 'Unchanged', venue: venue.name });
      }
      expect(await t.storage.venues.findById(venue._id)).toEqual(venue);
    });

    it('links organizers by id, by a list, by {id} with extra keys (ignored)', async () => {
      const [o1, o2] = [await insertOrganizer(t.storage), await insertOrganizer(t.storage)];
      expect(organizerIds(await createOk({ title: 'One organizer', organizer: o1._id }))).toEqual([o1._id]);
      expect(organizerIds(await createOk({ title: 'Two organizers', organizer: [o2._id, o1._id] }))).toEqual([o2._id, o1._id]);
      expect(organizerIds(await createOk({ title: 'Organizer objects', organizer: [{ id: o1._id, organizer: 'Renamed?', email: 'x@y.z' }] }))).toEqual([
        o1._id,
      ]);
      expect(await t.storage.organizers.findById(o1._id)).toEqual(o1);
    });

    it('replaces the venue and the organizers on update; an omitted one is kept', async () => {
      const [v1, v2] = [await insertVenue(t.storage), await insertVenue(t.storage)];
      const [o1, o2] = [await insertOrganizer(t.storage), await insertOrganizer(t.storage)];
      const event = await createOk({ title: 'Relinked', venue: v1._id, organizer: [o1._id] });
      const id = event.id as number;
      const moved = await updateOk(id, { venue: v2._id });
      expect(venueId(moved)).toBe(v2._id);
      expect(organizerIds(moved)).toEqual([o1._id]);
      const reorganized = await updateOk(id, { organizer: [o2._id, o1._id] }, 'PATCH');
      expect(venueId(reorganized)).toBe(v2._id);
      expect(organizerIds(reorganized)).toEqual([o2._id, o1._id]);
      const titled = await updateOk(id, { title: 'Relinked again' }, 'PUT');
      expect(venueId(titled)).toBe(v2._id);
      expect(organizerIds(titled)).toEqual([o2._id, o1._id]);
    });
  });

  describe('unlinking (EventUpdateCest L1204, L1250)', () => {
    it.each([
      ['0', 0],
      ['"0"', '0'],
      ['""', ''],
      ['[]', []],
    ])('venue: %s unlinks the venue and keeps the organizers', async (_label, value) => {
      const venue = await insertVenue(t.storage);
      const organizer = await insertOrganizer(t.storage);
      const event = await createOk({ title: 'Venue to drop', venue: venue._id, organizer: [organizer._id] });
      const body = await updateOk(event.id as number, { venue: value });
      expect(body.venue).toEqual([]);
      expect(organizerIds(body)).toEqual([organizer._id]);
      expect((await t.storage.events.findById(event.id as number))?.venueId).toBeNull();
      // The venue itself is untouched.
      expect(await t.storage.venues.findById(venue._id)).toEqual(venue);
    });

    it('organizer: [] unlinks every organizer and keeps the venue', async () => {
      const venue = await insertVenue(t.storage);
      const organizers = [await insertOrganizer(t.storage), await insertOrganizer(t.storage)];
      const event = await createOk({ title: 'Organizers to drop', venue: venue._id, organizer: organizers.map((o) => o._id) });
      const body = await updateOk(event.id as number, { title: 'Organizers dropped', venue: venue._id, organizer: [] });
      expect(body.organizer).toEqual([]);
      expect(venueId(body)).toBe(venue._id);
      expect((await t.storage.events.findById(event.id as number))?.organizerIds).toEqual([]);
      expect(await t.storage.organizers.count({ _id: { $in: organizers.map((o) => o._id) } })).toBe(2);
    });

    it('an empty venue on create means no venue', async () => {
      for (const value of [0, '', []]) expect((await createOk({ title: 'No venue', venue: value })).venue).toEqual([]);
    });
  });

  describe('refused writes leave nothing behind', () => {
    async function expectRefused(send: () => ReturnType<typeof create>, params: string[]) {
      const before = await snapshot(t.storage);
      const response = await send();
      expect(response.statusCode, response.body).toBe(400);
      const body = json<ErrorBody>(response);
      expect(body.code).toBe('rest_invalid_param');
      expect(Object.keys(body.data.params as object)).toEqual(params);
      expect(await snapshot(t.storage)).toEqual(before);
    }

    it('refuses an invalid nested venue naming venue, creating no venue, organizer or event', async () => {
      await expectRefused(
        () => create({ title: 'Bad nested venue', venue: { venue: 'Fresh venue', website: 'foo' }, organizer: [{ organizer: 'Fresh organizer' }] }),
        ['venue'],
      );
      expect(await t.storage.venues.count({ nameKey: 'fresh venue' })).toBe(0);
      expect(await t.storage.organizers.count({ nameKey: 'fresh organizer' })).toBe(0);
    });

    it.each([
      ['bad date', { venue: 'V', date: 'foo' }],
      ['bad image', { venue: 'V', image: 23 }],
      ['half a point', { venue: 'V', geo_lat: 10 }],
      ['out-of-range point', { venue: 'V', geo_lat: 100, geo_lng: 0 }],
      ['blank name', { venue: '  ' }],
      ['no name', { city: 'Nameless' }],
      ['unknown key', { venue: 'V', stateProvince: 'x' }],
      ['unknown id', { id: 987654 }],
      ['unknown id number', 987654],
      ['non-numeric string', 'foo'],
      ['organizer id', 'ORGANIZER'],
      ['two venues', [1, 2]],
    ])('refuses a venue with %s, naming venue', async (_label, value) => {
      const organizer = await insertOrganizer(t.storage);
      const venue = value === 'ORGANIZER' ? organizer._id : value;
      await expectRefused(() => create({ title: 'Bad venue', venue, organizer: [{ organizer: 'Would be new' }] }), ['venue']);
    });

    it.each([
      ['bad website', [{ organizer: 'O', website: 'foo' }]],
      ['no name', [{ email: 'a@b.c' }]],
      ['unknown id', [{ organizer: 'Fine' }, 987654]],
      ['unknown {id}', [{ id: 987654 }]],
      ['venue id', 'VENUE'],
      ['venue fields', [{ organizer: 'O', address: 'x' }]],
    ])('refuses organizers with %s, naming organizer, creating nothing', async (_label, value) => {
      const venue = await insertVenue(t.storage);
      const organizer = value === 'VENUE' ? [venue._id] : value;
      await expectRefused(() => create({ title: 'Bad organizer', venue: { venue: 'Would be new venue' }, organizer }), ['organizer']);
    });

    it('names venue and organizer together, and another bad field, still creating nothing', async () => {
      await expectRefused(
        () =>
          create({ title: 'All bad', end_date: '2000-01-01 00:00:00', venue: { venue: 'N', website: 'x' }, organizer: [{ organizer: 'M', image: 'nope' }] }),
        ['end_date', 'venue', 'organizer'],
      );
    });

    it('creates no nested record when the event itself is refused', async () => {
      await expectRefused(
        () => create({ title: 'Bad dates', start_date: 'not a date', venue: { venue: 'Orphan venue' }, organizer: [{ organizer: 'Orphan org' }] }),
        ['start_date'],
      );
    });

    it('leaves the event and the store unchanged when an update names an invalid nested venue', async () => {
      const venue = await insertVenue(t.storage);
      const event = await createOk({ title: 'Stable event', venue: venue._id });
      await expectRefused(
        () => update(event.id as number, { title: 'Changed', venue: { venue: 'New', website: 'bad' }, organizer: [{ organizer: 'New org' }] }),
        ['venue'],
      );
      expect(venueId(json(await get(`/events/${event.id as number}`)))).toBe(venue._id);
    });
  });

  describe('embedding and visibility', () => {
    it('embeds the venue as an object and the organizers as a list; none → [] and []', async () => {
      const bare = await createOk({ title: 'Nothing linked' });
      expect(bare.venue).toEqual([]);
      expect(bare.organizer).toEqual([]);
      const venue = await insertVenue(t.storage);
      const organizer = await insertOrganizer(t.storage);
      const linked = await createOk({ title: 'Both linked', venue: venue._id, organizer: organizer._id });
      expect(Array.isArray(linked.venue)).toBe(false);
      expect(linked.organizer).toHaveLength(1);
    });

    it('adds json_ld to the embedded venue and organizers on a single read only', async () => {
      const venue = await insertVenue(t.storage);
      const organizer = await insertOrganizer(t.storage);
      const created = await createOk({ title: 'Json ld links', venue: venue._id, organizer: [organizer._id] });
      expect(created.venue).not.toHaveProperty('json_ld');
      expect((created.organizer as Body[])[0]).not.toHaveProperty('json_ld');
      const read = json(await get(`/events/${created.id as number}`));
      expect((read.venue as Body).json_ld).toMatchObject({ '@type': 'Place', name: venue.name });
      expect((read.organizer as Body[])[0]?.json_ld).toMatchObject({ '@type': 'Person', name: organizer.name });
      const keys = Object.keys(read.venue as Body);
      // After the address fields, before the map flags.
      expect(keys.indexOf('json_ld')).toBe(keys.indexOf('website') + 1);
      expect(keys.indexOf('show_map')).toBe(keys.indexOf('json_ld') + 1);
    });

    it('does not embed a draft venue or organizer for anonymous callers, but does for token holders', async () => {
      const draftVenue = await insertVenue(t.storage, { status: 'draft' });
      const draftOrganizer = await insertOrganizer(t.storage, { status: 'draft' });
      const publicOrganizer = await insertOrganizer(t.storage);
      const event = await createOk({ title: 'Public event, draft links', venue: draftVenue._id, organizer: [draftOrganizer._id, publicOrganizer._id] });
      const path = `/events/${event.id as number}`;
      const anonymous = json(await get(path));
      expect(anonymous.venue).toEqual([]);
      expect(organizerIds(anonymous)).toEqual([publicOrganizer._id]);
      for (const headers of [VIEWER, EDITOR]) {
        const body = json(await get(path, headers));
        expect(body.venue).toMatchObject({ id: draftVenue._id, status: 'draft' });
        expect(body.venue).not.toHaveProperty('json_ld');
        expect(organizerIds(body)).toEqual([draftOrganizer._id, publicOrganizer._id]);
      }
    });

    it('stops showing a venue or organizer trashed behind the event’s back to anonymous callers', async () => {
      const venue = await insertVenue(t.storage);
      const organizer = await insertOrganizer(t.storage);
      const event = await createOk({ title: 'Stale links', venue: venue._id, organizer: [organizer._id] });
      // A link left over (e.g. written while the record was being trashed): the embed still checks status.
      await t.storage.venues.updateById(venue._id, { $set: { status: 'trash' } });
      await t.storage.organizers.updateById(organizer._id, { $set: { status: 'trash' } });
      const anonymous = json(await get(`/events/${event.id as number}`));
      expect(anonymous.venue).toEqual([]);
      expect(anonymous.organizer).toEqual([]);
      const editor = json(await get(`/events/${event.id as number}`, EDITOR));
      expect(editor.venue).toMatchObject({ id: venue._id, status: 'trash' });
    });

    it('drops the embedded venue and organizer after DELETE /venues and /organizers, for everybody', async () => {
      const venue = await insertVenue(t.storage);
      const organizer = await insertOrganizer(t.storage);
      const event = await createOk({ title: 'Deleted links', venue: venue._id, organizer: [organizer._id] });
      expect((await t.app.inject({ method: 'DELETE', url: `${API}/venues/${venue._id}`, headers: EDITOR })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'DELETE', url: `${API}/organizers/${organizer._id}`, headers: EDITOR })).statusCode).toBe(200);
      for (const headers of [{}, EDITOR]) {
        const body = json(await get(`/events/${event.id as number}`, headers));
        expect(body.venue).toEqual([]);
        expect(body.organizer).toEqual([]);
      }
    });

    it('shows a scheduled venue once its date has passed', async () => {
      const venue = await insertVenue(t.storage, { status: 'future', dateUtc: new Date(Date.now() - 60_000) });
      const event = await createOk({ title: 'Due venue', venue: venue._id });
      expect(json(await get(`/events/${event.id as number}`)).venue).toMatchObject({ id: venue._id, status: 'publish' });
    });
  });
});

describe.each(engines)('$name engine: concurrent nested creations', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    // Storage calls yield to the event loop, so the requests interleave (../helpers/latency.ts).
    t = await openTestApp(slowEngine(engine), ENV);
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (url: string, payload: Body) => t.app.inject({ method: 'POST', url: `${API}${url}`, headers: EDITOR, payload });

  it('eight event creates naming the same new venue and organizer make one of each, linked to all eight', async () => {
    const before = await countAll(t.storage);
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(
          '/events',
          makeEventInput({ title: `Festival day ${i}`, venue: { venue: 'Festival grounds', city: 'Roskilde' }, organizer: [{ organizer: 'Festival crew' }] }),
        ),
      ),
    );
    for (const response of responses) expect(response.statusCode, response.body).toBe(201);
    const venues = await t.storage.venues.find({ filter: { nameKey: 'festival grounds' } });
    const organizers = await t.storage.organizers.find({ filter: { nameKey: 'festival crew' } });
    expect(venues).toHaveLength(1);
    expect(organizers).toHaveLength(1);
    for (const response of responses) {
      const body = json(response);
      expect((body.venue as Body).id).toBe(venues[0]?._id);
      expect((body.organizer as Body[]).map((o) => o.id)).toEqual([organizers[0]?._id]);
    }
    expect(await countAll(t.storage)).toEqual({ ...before, events: before.events + 8, venues: before.venues + 1, organizers: before.organizers + 1 });
  });

  it('nested and top-level creates of the same venue race to one record', async () => {
    const responses = await Promise.all([
      post('/venues', { venue: 'Contested hall' }),
      post('/events', makeEventInput({ title: 'Contest one', venue: { venue: 'contested hall' } })),
      post('/venues', { venue: 'CONTESTED HALL', city: 'Gent' }),
      post('/events', makeEventInput({ title: 'Contest two', venue: { venue: 'Contested Hall' } })),
    ]);
    for (const response of responses) expect(response.statusCode, response.body).toBe(201);
    const stored = await t.storage.venues.find({ filter: { nameKey: 'contested hall' } });
    expect(stored).toHaveLength(1);
    const id = stored[0]?._id;
    expect(json(responses[0]).id).toBe(id);
    expect(json(responses[2]).id).toBe(id);
    expect((json(responses[1]).venue as Body).id).toBe(id);
    expect((json(responses[3]).venue as Body).id).toBe(id);
  });

  it('one event naming the same new organizer twice links it once', async () => {
    const response = await post('/events', makeEventInput({ title: 'Twice', organizer: [{ organizer: 'Echo org' }, { organizer: 'echo org' }] }));
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response).organizer).toHaveLength(1);
    expect(await t.storage.organizers.count({ nameKey: 'echo org' })).toBe(1);
  });
});
