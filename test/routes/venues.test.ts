/**
 * Venues: create, validation, de-duplication (also under concurrency), read by id and slug, partial
 * update and trash — the reference's VenueInsertionCest, VenueSingleCest, VenueSingleSlugCest,
 * VenueUpdateCest and VenueDeletionCest with our differences.
 * Lists are in ./linked-post-lists.test.ts.
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
  createEventOk,
  insertOrganizer,
  insertVenue,
  json,
  openTestApp,
  snapshot,
} from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { slowEngine } from '../helpers/latency.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type ErrorBody = { code: string; message: string; data: { status: number; params?: unknown } };

/** The editor token carries author 1, like the administrator of the samples. */
const ENV = {
  API_TOKENS: `editor:${EDITOR_TOKEN}:1,viewer:${VIEWER_TOKEN}:${VIEWER_AUTHOR_ID}`,
  PUBLIC_URL: 'http://127.0.0.1:8080',
};
const SITE = 'http://127.0.0.1:8080';

/** The request of sample 06-create-venue. */
const SAMPLE_06_REQUEST = {
  venue: 'Peer Hall mwpwdya6',
  address: '1 Loopback Way',
  city: 'Localhost',
  country: 'United States',
  state: 'CA',
  zip: '90210',
  phone: '+1 555 0100',
  website: 'http://example.test/hall',
  description: 'A venue created by the peer sample script',
  show_map: 'true',
  show_map_link: 'false',
};
/** Keys of sample 06-create-venue.json, in order (no province, excerpt or image: empty members are dropped). */
const SAMPLE_06_KEYS = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'venue',
  'description',
  'slug',
  'address',
  'city',
  'country',
  'state',
  'zip',
  'phone',
  'website',
  'stateprovince',
  'show_map',
  'show_map_link',
  'global_id',
  'global_id_lineage',
  // Our extension fields: ZIP 90210 is in the offline gazetteer, so coordinates are filled.
  'geo_lat',
  'geo_lng',
  'geo_source',
];
/** Keys of sample 31-venue-by-id.json: a single read adds json_ld before the map flags. */
const SAMPLE_31_KEYS = [...SAMPLE_06_KEYS.slice(0, 19), 'json_ld', ...SAMPLE_06_KEYS.slice(19)];
/** Every key a venue can have, in the reference's order, then our extension fields. */
const ALL_KEYS = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'venue',
  'description',
  'excerpt',
  'slug',
  'image',
  'address',
  'city',
  'country',
  'province',
  'state',
  'zip',
  'phone',
  'website',
  'stateprovince',
  'json_ld',
  'show_map',
  'show_map_link',
  'global_id',
  'global_id_lineage',
  'geo_lat',
  'geo_lng',
  'geo_source',
];
const OPTIONAL_TEXT = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince', 'website', 'description'] as const;

const WALL_CLOCK = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Keys of `body` in the order they appear in ALL_KEYS must be the order they were sent in. */
function expectReferenceOrder(body: Body): void {
  const keys = Object.keys(body);
  expect(keys).toEqual(ALL_KEYS.filter((k) => keys.includes(k)));
}

describe.each(engines)('$name engine: venues', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, ENV);
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (payload: unknown, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method: 'POST', url: `${API}/venues`, headers, payload: payload as Body });
  const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `${API}${path}`, headers });
  const write = (method: 'POST' | 'PUT' | 'PATCH', path: string, payload: unknown, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method, url: `${API}${path}`, headers, payload: payload as Body });
  const del = (path: string, headers: Record<string, string> = EDITOR) => t.app.inject({ method: 'DELETE', url: `${API}${path}`, headers });

  async function createOk(payload: Body): Promise<Body> {
    const response = await post(payload);
    expect(response.statusCode, response.body).toBe(201);
    return json(response);
  }

  /** A body that must be refused: code, named parameters, and nothing stored. */
  async function expectRejected(payload: unknown, code: string, params: string[]): Promise<ErrorBody> {
    const before = await snapshot(t.storage);
    const response = await post(payload);
    const body = json<ErrorBody>(response);
    expect(response.statusCode, response.body).toBe(400);
    expect(body.code).toBe(code);
    expect(body.data.status).toBe(400);
    const named = Array.isArray(body.data.params) ? body.data.params : Object.keys(body.data.params as object);
    expect(named).toEqual(params);
    expect(await snapshot(t.storage)).toEqual(before);
    return body;
  }

  const venuesNamed = async (name: string) => await t.storage.venues.find({ filter: { nameKey: name.toLowerCase() }, sort: [['_id', 1]] });

  describe('POST /venues', () => {
    it('creates sample 06: 201, every field echoed in the reference shape and key order', async () => {
      const before = Date.now();
      const response = await post(SAMPLE_06_REQUEST);
      expect(response.statusCode, response.body).toBe(201);
      const body = json(response);
      expect(Object.keys(body)).toEqual(SAMPLE_06_KEYS);
      const id = body.id as number;
      expect(Number.isInteger(id) && id > 0).toBe(true);
      expect(body).toEqual({
        id,
        author: '1',
        status: 'publish',
        date: expect.stringMatching(WALL_CLOCK),
        date_utc: expect.stringMatching(WALL_CLOCK),
        modified: expect.stringMatching(WALL_CLOCK),
        modified_utc: expect.stringMatching(WALL_CLOCK),
        url: `${SITE}/venue/peer-hall-mwpwdya6/`,
        venue: 'Peer Hall mwpwdya6',
        description: '<p>A venue created by the peer sample script</p>',
        slug: 'peer-hall-mwpwdya6',
        address: '1 Loopback Way',
        city: 'Localhost',
        country: 'United States',
        state: 'CA',
        zip: '90210',
        phone: '+1 555 0100',
        website: 'http://example.test/hall',
        stateprovince: 'CA',
        show_map: true,
        show_map_link: false,
        global_id: `127.0.0.1?id=${id}`,
        global_id_lineage: [`127.0.0.1?id=${id}`],
        // Beverly Hills, from the US ZIP code.
        geo_lat: expect.closeTo(34.09, 1),
        geo_lng: expect.closeTo(-118.41, 1),
        geo_source: 'gazetteer',
      });
      const published = Date.parse(`${(body.date_utc as string).replace(' ', 'T')}Z`);
      expect(published).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(published).toBeLessThanOrEqual(Date.now());
      // Default context: no json_ld, no Location header; and no rest_url on venues.
      expect(response.headers.location).toBeUndefined();
      // Stored as sent (description raw, not rendered).
      const stored = await t.storage.venues.findById(id);
      expect(stored).toMatchObject({
        name: 'Peer Hall mwpwdya6',
        nameKey: 'peer hall mwpwdya6',
        description: 'A venue created by the peer sample script',
        status: 'publish',
        authorId: 1,
      });
    });

    it('refuses anonymous callers with 401 and viewers with 403, storing nothing', async () => {
      const before = await countAll(t.storage);
      const anonymous = await post({ venue: 'Nobody’s hall' }, {});
      expect(anonymous.statusCode).toBe(401);
      expect(json(anonymous)).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } });
      const viewer = await post({ venue: 'Viewer hall' }, VIEWER);
      expect(viewer.statusCode).toBe(403);
      expect(json<ErrorBody>(viewer).code).toBe('rest_forbidden');
      expect(await countAll(t.storage)).toEqual(before);
    });

    it('accepts post fields: author as a string, timestamps for date and date_utc, status draft; timezone is ignored', async () => {
      const body = await createOk({
        venue: 'Post fields hall',
        author: 23,
        date: 1500000000,
        date_utc: 1500000000,
        description: 'Some description',
        status: 'draft',
        timezone: 'America/New_York',
      });
      expect(body).toMatchObject({
        author: '23',
        status: 'draft',
        // 1500000000 = 2017-07-14 02:40:00 UTC; the site time zone is UTC here.
        date: '2017-07-14 02:40:00',
        date_utc: '2017-07-14 02:40:00',
        description: '<p>Some description</p>',
      });
      expect(body).not.toHaveProperty('timezone');
      expect((await t.storage.venues.findById(body.id as number))?.status).toBe('draft');
    });

    it('accepts the author as a numeric string', async () => {
      expect(await createOk({ venue: 'String author hall', author: '42' })).toMatchObject({ author: '42' });
    });

    it('echoes every optional field, the image as the image object, in the reference key order', async () => {
      const body = await createOk({
        venue: 'Every field hall',
        description: 'Line one',
        address: '10 Rue de Rivoli',
        city: 'Paris',
        country: 'France',
        province: 'Île-de-France',
        state: 'IDF',
        zip: '75001',
        phone: '+33 1 23 45 67 89',
        stateprovince: 'Ile de France',
        website: 'https://example.fr/hall',
        image: 'https://example.fr/img/Hall.JPG',
        show_map: 'false',
        show_map_link: 'yes',
      });
      expectReferenceOrder(body);
      expect(body).toMatchObject({
        venue: 'Every field hall',
        description: '<p>Line one</p>',
        slug: 'every-field-hall',
        image: { url: 'https://example.fr/img/Hall.JPG', extension: 'jpg' },
        address: '10 Rue de Rivoli',
        city: 'Paris',
        country: 'France',
        province: 'Île-de-France',
        state: 'IDF',
        zip: '75001',
        phone: '+33 1 23 45 67 89',
        stateprovince: 'Ile de France',
        website: 'https://example.fr/hall',
        show_map: false,
        show_map_link: true,
      });
    });

    it.each([
      ['"false"', 'false', false],
      ['"0"', '0', false],
      ['"no"', 'no', false],
      ['"yes"', 'yes', true],
      ['"true"', 'true', true],
      ['"1"', '1', true],
      ['"on"', 'on', true],
      ['JSON true', true, true],
      ['JSON false', false, false],
      ['1', 1, true],
      ['0', 0, false],
    ] as const)('reads show_map and show_map_link given as %s', async (label, value, expected) => {
      const body = await createOk({ venue: `Map flags ${label}`, show_map: value, show_map_link: value });
      expect(body.show_map).toBe(expected);
      expect(body.show_map_link).toBe(expected);
      const stored = await t.storage.venues.findById(body.id as number);
      expect(stored).toMatchObject({ showMap: expected, showMapLink: expected });
    });

    it('defaults both map flags to true', async () => {
      expect(await createOk({ venue: 'Default flags hall' })).toMatchObject({ show_map: true, show_map_link: true });
    });

    it('drops empty optional fields from the representation', async () => {
      const body = await createOk({
        venue: 'Empty fields hall',
        description: '',
        address: '',
        city: '',
        country: '',
        province: '',
        state: '',
        zip: '',
        phone: '',
        stateprovince: '',
        website: '',
        image: '',
      });
      for (const key of [...OPTIONAL_TEXT, 'image', 'excerpt', 'json_ld', 'geo_lat', 'geo_lng']) expect(body).not.toHaveProperty(key);
      expect(Object.keys(body)).toEqual([
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
        'show_map',
        'show_map_link',
        'global_id',
        'global_id_lineage',
      ]);
    });

    it('derives stateprovince: the state in the US (or without a country), the province elsewhere; an explicit value wins', async () => {
      expect(await createOk({ venue: 'US hall', state: 'NY', province: 'ignored', country: 'United States' })).toMatchObject({ stateprovince: 'NY' });
      expect(await createOk({ venue: 'No-country hall', state: 'TX' })).toMatchObject({ stateprovince: 'TX' });
      expect(await createOk({ venue: 'Canada hall', state: 'x', province: 'Ontario', country: 'Canada' })).toMatchObject({ stateprovince: 'Ontario' });
      expect(await createOk({ venue: 'Explicit hall', state: 'NY', country: 'United States', stateprovince: 'New York State' })).toMatchObject({
        stateprovince: 'New York State',
      });
    });

    it('ignores generated fields sent back (slug, url, id, global_id, json_ld, excerpt)', async () => {
      const body = await createOk({
        venue: 'Generated fields hall',
        id: 999999,
        slug: 'my-own-slug',
        url: 'http://evil.example/',
        global_id: 'x',
        global_id_lineage: ['x'],
        json_ld: { a: 1 },
        excerpt: 'not settable',
        modified: '2001-01-01 00:00:00',
      });
      expect(body.id).not.toBe(999999);
      expect(body).toMatchObject({ slug: 'generated-fields-hall', url: `${SITE}/venue/generated-fields-hall/` });
      expect(body).not.toHaveProperty('excerpt');
      expect(body.modified).not.toBe('2001-01-01 00:00:00');
    });

    it('gives different names with the same slug -2, -3 suffixes', async () => {
      const first = await createOk({ venue: 'Café Slug' });
      const second = await createOk({ venue: 'Cafe Slug' });
      const third = await createOk({ venue: 'Cafe  Slug!' });
      expect([first.slug, second.slug, third.slug]).toEqual(['cafe-slug', 'cafe-slug-2', 'cafe-slug-3']);
      expect(new Set([first.id, second.id, third.id]).size).toBe(3);
    });

    it('schedules a venue whose publication date lies in the future (status future)', async () => {
      const body = await createOk({ venue: 'Future hall', date_utc: '2099-01-01 10:00:00' });
      expect(body).toMatchObject({ status: 'future', date_utc: '2099-01-01 10:00:00' });
    });
  });

  describe('POST /venues validation', () => {
    it('refuses a missing name with rest_missing_callback_param naming venue', async () => {
      const body = await expectRejected({ city: 'Nowhere' }, 'rest_missing_callback_param', ['venue']);
      expect(body.message).toBe('Missing parameter(s): venue');
    });

    it('refuses an empty body the same way', async () => {
      await expectRejected({}, 'rest_missing_callback_param', ['venue']);
    });

    it.each([
      ['empty', ''],
      ['blank', '   '],
    ])('refuses an %s name naming venue', async (_label, venue) => {
      await expectRejected({ venue }, 'rest_invalid_param', ['venue']);
    });

    it.each([
      ['website', { website: 'foo' }],
      ['website', { website: 'ftp://example.org/' }],
      ['website', { website: 42 }],
      ['date', { date: 'foo' }],
      ['date', { date: 'before my birthday' }],
      ['date_utc', { date_utc: 'foo' }],
      ['status', { status: 'kinda_thinking_about_it' }],
      ['author', { author: 'foo' }],
      ['author', { author: '' }],
      ['author', { author: 0 }],
      ['image', { image: 23 }],
      ['image', { image: '23' }],
      ['image', { image: 'not a url' }],
      ['show_map', { show_map: { on: true } }],
      ['city', { city: ['Paris'] }],
      ['description', { description: 12 }],
      ['unknown_field', { unknown_field: 'x' }],
      ['stateProvince', { stateProvince: 'x' }],
    ])('refuses a bad %s, naming it: %j', async (param, fields) => {
      await expectRejected({ venue: `Bad ${param} hall`, ...fields }, 'rest_invalid_param', [param]);
    });

    it('names every bad parameter of one body at once', async () => {
      const body = await expectRejected({ venue: 'Many errors hall', website: 'foo', date: 'foo', image: 'nope' }, 'rest_invalid_param', [
        'date',
        'website',
        'image',
      ]);
      expect(body.message).toBe('Invalid parameter(s): date, website, image');
    });
  });

  describe('coordinates (geo_lat / geo_lng)', () => {
    it('stores a point and returns geo_lat, geo_lng and geo_source after every reference field', async () => {
      const body = await createOk({ venue: 'Geo hall', city: 'Montréal', geo_lat: 45.5017, geo_lng: -73.5673 });
      expect(body).toMatchObject({ geo_lat: 45.5017, geo_lng: -73.5673, geo_source: 'provided' });
      expect(Object.keys(body).slice(-5)).toEqual(['global_id', 'global_id_lineage', 'geo_lat', 'geo_lng', 'geo_source']);
      expect((await t.storage.venues.findById(body.id as number))?.location).toEqual({ type: 'Point', coordinates: [-73.5673, 45.5017] });
    });

    it('accepts numeric strings and the range bounds', async () => {
      expect(await createOk({ venue: 'Geo strings hall', geo_lat: '-33.8568', geo_lng: '151.2153' })).toMatchObject({ geo_lat: -33.8568, geo_lng: 151.2153 });
      expect(await createOk({ venue: 'Geo bounds hall', geo_lat: 90, geo_lng: -180 })).toMatchObject({ geo_lat: 90, geo_lng: -180 });
      expect(await createOk({ venue: 'Geo bounds hall 2', geo_lat: '-90', geo_lng: '180' })).toMatchObject({ geo_lat: -90, geo_lng: 180 });
    });

    it('has no coordinates when none are sent, or both are ""', async () => {
      for (const body of [await createOk({ venue: 'No geo hall' }), await createOk({ venue: 'Blank geo hall', geo_lat: '', geo_lng: '' })]) {
        expect(body).not.toHaveProperty('geo_lat');
        expect(body).not.toHaveProperty('geo_lng');
        expect(body).not.toHaveProperty('geo_source');
      }
    });

    it.each([
      ['geo_lng', { geo_lat: 10 }],
      ['geo_lat', { geo_lng: 10 }],
      ['geo_lng', { geo_lat: '10' }],
      ['geo_lat', { geo_lat: 90.5, geo_lng: 0 }],
      ['geo_lat', { geo_lat: -91, geo_lng: 0 }],
      ['geo_lng', { geo_lat: 0, geo_lng: 180.01 }],
      ['geo_lng', { geo_lat: 0, geo_lng: '-181' }],
      ['geo_lat', { geo_lat: 'north', geo_lng: 0 }],
      ['geo_lat', { geo_lat: '', geo_lng: 10 }],
      ['geo_lng', { geo_lat: 10, geo_lng: '' }],
      ['geo_lat', { geo_lat: '1e1', geo_lng: 0 }],
    ])('refuses %s in %j', async (param, fields) => {
      await expectRejected({ venue: 'Bad geo hall', ...fields }, 'rest_invalid_param', [param]);
    });

    it('refuses both out of range, naming both', async () => {
      await expectRejected({ venue: 'Bad geo hall', geo_lat: 100, geo_lng: 200 }, 'rest_invalid_param', ['geo_lat', 'geo_lng']);
    });

    it('updates and clears the coordinates; one of them alone is refused and changes nothing', async () => {
      const created = await createOk({ venue: 'Moving hall', geo_lat: 1, geo_lng: 2 });
      const path = `/venues/${created.id as number}`;
      const moved = await write('PATCH', path, { geo_lat: '48.8566', geo_lng: '2.3522' });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(json(moved)).toMatchObject({ geo_lat: 48.8566, geo_lng: 2.3522 });

      const before = await snapshot(t.storage);
      const half = await write('PATCH', path, { geo_lat: 3 });
      expect(half.statusCode).toBe(400);
      expect(json<ErrorBody>(half).data.params).toEqual({ geo_lng: expect.any(String) });
      expect(await snapshot(t.storage)).toEqual(before);

      // Other updates keep them.
      expect(json(await write('PATCH', path, { city: 'Paris' }))).toMatchObject({ geo_lat: 48.8566, geo_lng: 2.3522 });

      const cleared = json(await write('PATCH', path, { geo_lat: '', geo_lng: '' }));
      for (const key of ['geo_lat', 'geo_lng', 'geo_source']) expect(cleared).not.toHaveProperty(key);
      expect((await t.storage.venues.findById(created.id as number))?.location).toBeNull();
    });

    it('adds the coordinates to json_ld on single reads', async () => {
      const created = await createOk({ venue: 'Geo ld hall', geo_lat: 10.5, geo_lng: -20.25 });
      const body = json(await get(`/venues/${created.id as number}`));
      expect((body.json_ld as Body).geo).toEqual({ '@type': 'GeoCoordinates', latitude: 10.5, longitude: -20.25 });
      expect(Object.keys(body).slice(-5)).toEqual(['global_id', 'global_id_lineage', 'geo_lat', 'geo_lng', 'geo_source']);
    });
  });

  describe('de-duplication on create', () => {
    it('answers a second create with the same name with 201 and the same record', async () => {
      const first = await createOk({ venue: 'A venue' });
      const second = await post({ venue: 'A venue' });
      expect(second.statusCode).toBe(201);
      expect(json(second).id).toBe(first.id);
      expect(await venuesNamed('a venue')).toHaveLength(1);
    });

    it('matches name and description case-insensitively (VenueInsertionCest L211)', async () => {
      const first = await createOk({ venue: 'Dedup Venue', description: 'A venue description' });
      const again = await createOk({ venue: 'Dedup Venue', description: 'A venue description' });
      const nameOnly = await createOk({ venue: 'Dedup Venue' });
      const lower = await createOk({ venue: 'dedup venue', description: 'a venue description' });
      expect([again.id, nameOnly.id, lower.id]).toEqual([first.id, first.id, first.id]);
      // The record keeps its own spelling of the name; the (matching) description is written as sent.
      expect(lower.venue).toBe('Dedup Venue');
      expect((lower.description as string).toLowerCase()).toBe('<p>a venue description</p>');
      expect(await venuesNamed('dedup venue')).toHaveLength(1);
    });

    it('creates a new record when the description differs', async () => {
      const first = await createOk({ venue: 'Twin hall', description: 'The first one' });
      const second = await createOk({ venue: 'Twin hall', description: 'The second one' });
      expect(second.id).not.toBe(first.id);
      expect(second.slug).toBe('twin-hall-2');
      expect(await venuesNamed('twin hall')).toHaveLength(2);
      // Without a description, the oldest matching record is the duplicate.
      expect((await createOk({ venue: 'Twin hall' })).id).toBe(first.id);
    });

    it('de-duplicates whatever subset of the address fields is sent (VenueInsertionCest L260)', async () => {
      const fields = {
        address: '10 Downing St',
        city: 'London',
        country: 'United Kingdom',
        province: 'Greater London',
        state: 'LDN',
        zip: 'SW1A 2AA',
        phone: '+44 20 7925 0918',
      };
      const first = await createOk({ venue: 'Subset hall', ...fields });
      for (const subset of [{ city: 'london' }, { zip: 'sw1a 2aa', phone: '+44 20 7925 0918' }, { address: '10 downing st', country: 'united kingdom' }]) {
        expect((await createOk({ venue: 'SUBSET HALL', ...subset })).id).toBe(first.id);
      }
      expect(await venuesNamed('subset hall')).toHaveLength(1);
    });

    // Our decision (the reference overwrites the duplicate): a create that names an existing
    // venue answers it unchanged, so no create can rewrite or unpublish a shared record.
    it('answers the existing record unchanged: the sent fields are not written onto it', async () => {
      const first = await createOk({
        venue: 'Merge hall',
        address: '1 Main St',
        city: 'Springfield',
        state: 'IL',
        country: 'United States',
        phone: '111',
        show_map: 'false',
      });
      const before = json(await get(`/venues/${first.id as number}`));
      const again = await createOk({
        venue: 'merge HALL',
        address: 'Attacker Street 666',
        phone: '222',
        show_map_link: false,
        website: 'https://merge.example/',
      });
      expect(again).toEqual(first);
      expect(json(await get(`/venues/${first.id as number}`))).toEqual(before);
    });

    it('ignores status when matching, and a duplicate create cannot change it', async () => {
      const draft = await createOk({ venue: 'Draft twin hall', status: 'draft' });
      const again = await createOk({ venue: 'Draft twin hall', city: 'Oslo', status: 'publish' });
      expect(again).toEqual(draft);
      const published = await createOk({ venue: 'Public twin hall' });
      expect(await createOk({ venue: 'public twin hall', status: 'trash' })).toMatchObject({ id: published.id, status: 'publish' });
    });

    // Our decision: a trashed venue is not revived by a create with its name; a new one is made.
    it('does not revive a trashed record: a new one is created and the trashed one stays in the trash', async () => {
      const old = await createOk({ venue: 'Phoenix hall', city: 'Ashes' });
      expect((await del(`/venues/${old.id as number}`)).statusCode).toBe(200);
      const fresh = await createOk({ venue: 'Phoenix hall' });
      expect(fresh.id).not.toBe(old.id);
      expect(fresh).toMatchObject({ status: 'publish', slug: 'phoenix-hall-2' });
      expect(fresh).not.toHaveProperty('city');
      expect((await t.storage.venues.findById(old.id as number))?.status).toBe('trash');
      // And a further create finds the live one.
      expect((await createOk({ venue: 'PHOENIX HALL' })).id).toBe(fresh.id);
    });

    it('does not de-duplicate against organizers of the same name', async () => {
      const organizer = await insertOrganizer(t.storage, { name: 'Shared name', nameKey: 'shared name', slug: 'shared-name' });
      const venue = await createOk({ venue: 'Shared name' });
      expect(venue.id).not.toBe(organizer._id);
      expect(venue.slug).toBe('shared-name');
    });
  });

  describe('GET /venues/{id} and /venues/by-slug/{slug}', () => {
    it('reads sample 31: the created venue plus json_ld, keys in the reference order', async () => {
      const created = await createOk({ ...SAMPLE_06_REQUEST, venue: 'Peer Hall read' });
      const id = created.id as number;
      const response = await get(`/venues/${id}`);
      expect(response.statusCode).toBe(200);
      const body = json(response);
      expect(Object.keys(body)).toEqual(SAMPLE_31_KEYS);
      const { json_ld: jsonLd, ...rest } = body;
      expect(rest).toEqual(created);
      expect(jsonLd).toEqual({
        '@type': 'Place',
        name: 'Peer Hall read',
        description: '&lt;p&gt;A venue created by the peer sample script&lt;/p&gt;',
        url: '',
        address: {
          '@type': 'PostalAddress',
          streetAddress: '1 Loopback Way',
          addressLocality: 'Localhost',
          addressRegion: 'CA',
          postalCode: '90210',
          addressCountry: 'United States',
        },
        telephone: '+1 555 0100',
        sameAs: 'http://example.test/hall',
        geo: { '@type': 'GeoCoordinates', latitude: created.geo_lat, longitude: created.geo_lng },
      });
      // By slug: the same answer.
      const bySlug = await get(`/venues/by-slug/${created.slug as string}`);
      expect(bySlug.statusCode).toBe(200);
      expect(json(bySlug)).toEqual(body);
    });

    it('answers a draft with 403 venue-not-accessible to anonymous callers, and in full to token holders', async () => {
      const draft = await createOk({ venue: 'Secret hall', status: 'draft', city: 'Hidden' });
      for (const path of [`/venues/${draft.id as number}`, `/venues/by-slug/secret-hall`]) {
        const anonymous = await get(path);
        expect(anonymous.statusCode).toBe(403);
        expect(json(anonymous)).toEqual({ code: 'venue-not-accessible', message: 'The requested venue is not accessible', data: { status: 403 } });
        for (const headers of [VIEWER, EDITOR]) {
          const response = await get(path, headers);
          expect(response.statusCode).toBe(200);
          // No json_ld for an unpublished venue.
          expect(json(response)).toEqual(draft);
        }
      }
    });

    it.each(['pending', 'private'] as const)('hides a %s venue from anonymous callers too', async (status) => {
      const venue = await insertVenue(t.storage, { status });
      expect((await get(`/venues/${venue._id}`)).statusCode).toBe(403);
      expect((await get(`/venues/${venue._id}`, VIEWER)).statusCode).toBe(200);
    });

    it('shows a scheduled venue whose date has passed as published, and hides one still in the future', async () => {
      const due = await insertVenue(t.storage, { status: 'future', dateUtc: new Date('2020-01-01T00:00:00Z') });
      const response = await get(`/venues/${due._id}`);
      expect(response.statusCode).toBe(200);
      expect(json(response)).toMatchObject({ status: 'publish' });
      expect(json(response)).toHaveProperty('json_ld');
      const later = await insertVenue(t.storage, { status: 'future', dateUtc: new Date('2099-01-01T00:00:00Z') });
      expect((await get(`/venues/${later._id}`)).statusCode).toBe(403);
      expect(json(await get(`/venues/${later._id}`, VIEWER))).toMatchObject({ status: 'future' });
    });

    it('answers an unknown id or slug with 404 rest-venue-not-found, for everybody', async () => {
      for (const headers of [{}, EDITOR]) {
        const byId = await get('/venues/987654', headers);
        expect(byId.statusCode).toBe(404);
        expect(json(byId)).toEqual({ code: 'rest-venue-not-found', message: 'Venue with ID 987654 does not exist.', data: { status: 404 } });
        const bySlug = await get('/venues/by-slug/no-such-venue', headers);
        expect(bySlug.statusCode).toBe(404);
        expect(json<ErrorBody>(bySlug).code).toBe('rest-venue-not-found');
      }
      expect(json<ErrorBody>(await get('/venues/0')).code).toBe('rest-venue-not-found');
    });

    it('answers the id of an organizer or an event with 404 rest-venue-not-found', async () => {
      const organizer = await insertOrganizer(t.storage);
      const event = await createEventOk(t.app, { title: 'Not a venue' });
      for (const id of [organizer._id, event.id as number]) {
        const response = await get(`/venues/${id}`);
        expect(response.statusCode).toBe(404);
        expect(json<ErrorBody>(response).code).toBe('rest-venue-not-found');
      }
      expect(json<ErrorBody>(await get(`/venues/by-slug/${organizer.slug}`)).code).toBe('rest-venue-not-found');
    });

    it.each(['/venues/foo', '/venues/foo%20bar', '/venues/12abc', '/venues/-1', '/venues/by-slug/'])('answers %s with 404 rest_no_route', async (path) => {
      const response = await get(path);
      expect(response.statusCode).toBe(404);
      expect(json<ErrorBody>(response).code).toBe('rest_no_route');
    });
  });

  describe.each(['PATCH', 'PUT', 'POST'] as const)('%s /venues/{id} (partial update)', (method) => {
    it('changes only the fields sent, like sample 43, and updates modified', async () => {
      const created = await createOk({ ...SAMPLE_06_REQUEST, venue: `Peer Hall ${method}`, date_utc: '2020-01-01 10:00:00' });
      const response = await write(method, `/venues/${created.id as number}`, { city: 'Loopbackville' });
      expect(response.statusCode, response.body).toBe(200);
      const body = json(response);
      const { modified, modified_utc: modifiedUtc, ...rest } = body;
      const { modified: _m, modified_utc: _mu, ...createdRest } = created;
      // Everything else is kept — the reference also drops stateprovince here; we do not.
      expect(rest).toEqual({ ...createdRest, city: 'Loopbackville' });
      expect(modified).toMatch(WALL_CLOCK);
      expect(modifiedUtc).toMatch(WALL_CLOCK);
      expect(Object.keys(body)).toEqual(SAMPLE_06_KEYS);
    });

    it('works on /venues/by-slug/{slug} too', async () => {
      const created = await createOk({ venue: `Slug update ${method}`, city: 'Before' });
      const response = await write(method, `/venues/by-slug/${created.slug as string}`, { city: 'After' });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toMatchObject({ id: created.id, city: 'After' });
    });

    it('clears every optional field sent as "" (the keys disappear) and sets the map flags from "false"', async () => {
      const created = await createOk({
        venue: `Clear me ${method}`,
        description: 'Desc',
        address: 'A',
        city: 'B',
        country: 'C',
        province: 'D',
        state: 'E',
        zip: 'F',
        phone: 'G',
        stateprovince: 'H',
        website: 'https://example.org/',
        image: 'https://example.org/a.png',
      });
      const clear = Object.fromEntries([...OPTIONAL_TEXT, 'image'].map((k) => [k, '']));
      const response = await write(method, `/venues/${created.id as number}`, { ...clear, show_map: 'false', show_map_link: 'false' });
      expect(response.statusCode, response.body).toBe(200);
      const body = json(response);
      for (const key of [...OPTIONAL_TEXT, 'image']) expect(body).not.toHaveProperty(key);
      expect(body).toMatchObject({ venue: `Clear me ${method}`, show_map: false, show_map_link: false });
    });

    it('keeps the map flags when they are omitted (no reset to true)', async () => {
      const created = await createOk({ venue: `Flags kept ${method}`, show_map: false, show_map_link: '0' });
      const body = json(await write(method, `/venues/${created.id as number}`, { zip: '12345' }));
      expect(body).toMatchObject({ show_map: false, show_map_link: false, zip: '12345' });
    });

    it('allows renaming to another venue’s name without merging them (VenueUpdateCest L269)', async () => {
      const one = await createOk({ venue: `Original ${method}`, city: 'One' });
      const two = await createOk({ venue: `Other ${method}`, city: 'Two' });
      const before = await t.storage.venues.count({});
      const response = await write(method, `/venues/${two.id as number}`, { venue: `Original ${method}` });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toMatchObject({ id: two.id, venue: `Original ${method}`, city: 'Two', slug: two.slug });
      expect(await t.storage.venues.count({})).toBe(before);
      expect(json(await get(`/venues/${one.id as number}`))).toMatchObject({ venue: `Original ${method}`, city: 'One' });
    });

    it('ignores a slug in the body, and keeps the slug on a rename', async () => {
      const created = await createOk({ venue: `Slug stays ${method}` });
      const body = json(await write(method, `/venues/${created.id as number}`, { slug: 'something-else', venue: `Renamed ${method}` }));
      expect(body).toMatchObject({ venue: `Renamed ${method}`, slug: created.slug });
      expect((await get('/venues/by-slug/something-else')).statusCode).toBe(404);
    });

    it('refuses bad values naming them, changing nothing', async () => {
      const created = await createOk({ venue: `Guarded ${method}`, city: 'Kept' });
      const path = `/venues/${created.id as number}`;
      for (const [param, payload] of [
        ['venue', { venue: '' }],
        ['website', { website: 'foo', city: 'Changed' }],
        ['date', { date: 'foo' }],
        ['status', { status: 'kinda' }],
        ['author', { author: 'foo' }],
        ['image', { image: 23 }],
        ['bogus', { bogus: 1 }],
      ] as const) {
        const before = await snapshot(t.storage);
        const response = await write(method, path, payload);
        expect(response.statusCode, `${param}: ${response.body}`).toBe(400);
        expect(Object.keys(json<ErrorBody>(response).data.params as object)).toEqual([param]);
        expect(await snapshot(t.storage)).toEqual(before);
      }
    });

    it('answers an unknown id with 404, an anonymous caller with 401 and a viewer with 403', async () => {
      const missing = await write(method, '/venues/987654', { city: 'x' });
      expect(missing.statusCode).toBe(404);
      expect(json<ErrorBody>(missing).code).toBe('rest-venue-not-found');
      expect(json<ErrorBody>(await write(method, '/venues/by-slug/no-such-venue', { city: 'x' })).code).toBe('rest-venue-not-found');

      const created = await createOk({ venue: `Protected ${method}` });
      const before = await snapshot(t.storage);
      expect((await write(method, `/venues/${created.id as number}`, { city: 'x' }, {})).statusCode).toBe(401);
      expect((await write(method, `/venues/${created.id as number}`, { city: 'x' }, VIEWER)).statusCode).toBe(403);
      expect(await snapshot(t.storage)).toEqual(before);
    });

    it('updates the status, and re-indexes the name for search', async () => {
      const created = await createOk({ venue: `Searchable ${method} Quokka` });
      const body = json(await write(method, `/venues/${created.id as number}`, { venue: `Searchable ${method} Wombat`, status: 'draft' }));
      expect(body.status).toBe('draft');
      const found = json<{ venues: Body[] }>(await get(`/venues?search=wombat&status=draft`, EDITOR)).venues.map((v) => v.id);
      expect(found).toContain(created.id);
      const old = json<{ venues: Body[] }>(await get(`/venues?search=quokka&status=draft`, EDITOR)).venues.map((v) => v.id);
      expect(old).not.toContain(created.id);
    });

    it('an empty body changes nothing but the modification date', async () => {
      const created = await createOk({ venue: `Untouched ${method}`, city: 'Same' });
      const response = await write(method, `/venues/${created.id as number}`, {});
      expect(response.statusCode).toBe(200);
      const { modified: _a, modified_utc: _b, ...after } = json(response);
      const { modified: _c, modified_utc: _d, ...before } = created;
      expect(after).toEqual(before);
    });
  });

  describe('DELETE /venues/{id}', () => {
    it('moves the venue to the trash: 200 with status trash, then 410 venue-is-in-trash', async () => {
      const created = await createOk({ venue: 'Doomed hall', city: 'Pompeii' });
      const id = created.id as number;
      const first = await del(`/venues/${id}`);
      expect(first.statusCode).toBe(200);
      const { status, modified: _m, modified_utc: _mu, ...rest } = json(first);
      const { status: _s, modified: _cm, modified_utc: _cmu, ...createdRest } = created;
      expect(status).toBe('trash');
      expect(rest).toEqual(createdRest);
      expect((await t.storage.venues.findById(id))?.status).toBe('trash');

      const second = await del(`/venues/${id}`);
      expect(second.statusCode).toBe(410);
      expect(json(second)).toEqual({ code: 'venue-is-in-trash', message: 'The venue is already trashed', data: { status: 410 } });
    });

    it('ignores force=true: still a move to the trash', async () => {
      const created = await createOk({ venue: 'Forced hall' });
      const response = await t.app.inject({ method: 'DELETE', url: `${API}/venues/${created.id as number}?force=true`, headers: EDITOR });
      expect(response.statusCode).toBe(200);
      expect(json(response).status).toBe('trash');
      expect(await t.storage.venues.findById(created.id as number)).not.toBeNull();
    });

    it('deletes by slug too', async () => {
      const created = await createOk({ venue: 'Slug doomed hall' });
      const response = await del('/venues/by-slug/slug-doomed-hall');
      expect(response.statusCode).toBe(200);
      expect(json(response)).toMatchObject({ id: created.id, status: 'trash' });
      expect((await del('/venues/by-slug/slug-doomed-hall')).statusCode).toBe(410);
    });

    it('unlinks the venue from its events (VenueDeletionCest L68), leaving their other links alone', async () => {
      const created = await createOk({ venue: 'Linked hall' });
      const organizer = await insertOrganizer(t.storage);
      const events = [
        await createEventOk(t.app, { title: 'At the linked hall', venue: created.id, organizer: [organizer._id] }),
        await createEventOk(t.app, { title: 'Also at the linked hall', venue: created.id, status: 'draft' }),
      ];
      const elsewhere = await insertVenue(t.storage);
      const other = await createEventOk(t.app, { title: 'Elsewhere', venue: elsewhere._id });

      expect((await del(`/venues/${created.id as number}`)).statusCode).toBe(200);
      for (const event of events) {
        const stored = await t.storage.events.findById(event.id as number);
        expect(stored?.venueId).toBeNull();
        const body = json(await get(`/events/${event.id as number}`, EDITOR));
        expect(body.venue).toEqual([]);
      }
      expect((await t.storage.events.findById(events[0]?.id as number))?.organizerIds).toEqual([organizer._id]);
      expect((await t.storage.events.findById(other.id as number))?.venueId).toBe(elsewhere._id);
    });

    it('keeps a trashed venue from anonymous callers (403) but not from token holders (200, status trash)', async () => {
      const created = await createOk({ venue: 'Binned hall' });
      const id = created.id as number;
      await del(`/venues/${id}`);
      for (const path of [`/venues/${id}`, '/venues/by-slug/binned-hall']) {
        const anonymous = await get(path);
        expect(anonymous.statusCode).toBe(403);
        expect(json<ErrorBody>(anonymous).code).toBe('venue-not-accessible');
        for (const headers of [EDITOR, VIEWER]) {
          const response = await get(path, headers);
          expect(response.statusCode).toBe(200);
          expect(json(response)).toMatchObject({ id, status: 'trash' });
          expect(json(response)).not.toHaveProperty('json_ld');
        }
      }
    });

    it('answers an unknown id with 404, an anonymous caller with 401 and a viewer with 403, changing nothing', async () => {
      const missing = await del('/venues/987654');
      expect(missing.statusCode).toBe(404);
      expect(json<ErrorBody>(missing).code).toBe('rest-venue-not-found');
      expect(json<ErrorBody>(await del('/venues/by-slug/no-such-venue')).code).toBe('rest-venue-not-found');
      const created = await createOk({ venue: 'Sturdy hall' });
      const before = await snapshot(t.storage);
      expect((await del(`/venues/${created.id as number}`, {})).statusCode).toBe(401);
      expect((await del(`/venues/${created.id as number}`, VIEWER)).statusCode).toBe(403);
      expect(await snapshot(t.storage)).toEqual(before);
    });
  });
});

/**
 * Concurrent identical creates: storage calls yield to the event loop (see
 * ../helpers/latency.ts), so the requests below really interleave between look-up and insert.
 */
describe.each(engines)('$name engine: concurrent venue creates (race-free de-duplication)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(slowEngine(engine), ENV);
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (payload: Body) => t.app.inject({ method: 'POST', url: `${API}/venues`, headers: EDITOR, payload });
  const venuesNamed = async (name: string) => t.storage.venues.find({ filter: { nameKey: name.toLowerCase() }, sort: [['_id', 1]] });
  const burst = (payloads: Body[]) => Promise.all(payloads.map((payload) => post(payload)));

  it('ten identical POSTs yield one record; every answer is 201 with its id', async () => {
    const responses = await burst(Array.from({ length: 10 }, () => ({ venue: 'Race hall', city: 'Monza' })));
    for (const response of responses) expect(response.statusCode, response.body).toBe(201);
    const ids = new Set(responses.map((r) => json(r).id));
    expect(ids.size).toBe(1);
    const stored = await venuesNamed('race hall');
    expect(stored).toHaveLength(1);
    expect(stored[0]?._id).toBe([...ids][0]);
    expect(stored[0]?.slug).toBe('race-hall');
  });

  it('names differing only in case are one record too', async () => {
    const names = ['Case Race Hall', 'CASE RACE HALL', 'case race hall', 'Case race Hall', 'cASE rACE hALL', 'Case Race Hall'];
    const responses = await burst(names.map((venue) => ({ venue })));
    expect(new Set(responses.map((r) => r.statusCode))).toEqual(new Set([201]));
    expect(new Set(responses.map((r) => json(r).id)).size).toBe(1);
    expect(await venuesNamed('case race hall')).toHaveLength(1);
  });

  it('a name without a Latin slug (東京ホール) is one record too', async () => {
    const responses = await burst(Array.from({ length: 8 }, () => ({ venue: '東京ホール' })));
    for (const response of responses) expect(response.statusCode, response.body).toBe(201);
    expect(new Set(responses.map((r) => json(r).id)).size).toBe(1);
    expect(await venuesNamed('東京ホール')).toHaveLength(1);
  });

  it('different descriptions under one name stay different records, each with its own slug', async () => {
    const responses = await burst([
      { venue: 'Split hall', description: 'North wing' },
      { venue: 'Split hall', description: 'South wing' },
      { venue: 'Split hall', description: 'North wing' },
      { venue: 'Split hall', description: 'South wing' },
    ]);
    for (const response of responses) expect(response.statusCode, response.body).toBe(201);
    const stored = await venuesNamed('split hall');
    expect(stored).toHaveLength(2);
    expect(new Set(stored.map((v) => v.slug))).toEqual(new Set(['split-hall', 'split-hall-2']));
    const byDescription = new Map(stored.map((v) => [v.description, v._id]));
    for (const [i, response] of responses.entries()) {
      expect(json(response).id).toBe(byDescription.get(i % 2 === 0 ? 'North wing' : 'South wing'));
    }
  });
});

describe.each(engines)('$name engine: venue dates in a site time zone other than UTC', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, { ...ENV, SITE_TIMEZONE: 'America/New_York' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (payload: Body) => t.app.inject({ method: 'POST', url: `${API}/venues`, headers: EDITOR, payload });

  it('reads date in the site time zone and date_utc in UTC; a timestamp is an instant', async () => {
    const local = json(await post({ venue: 'NY local date', date: '2020-01-15 10:00:00' }));
    expect(local).toMatchObject({ date: '2020-01-15 10:00:00', date_utc: '2020-01-15 15:00:00' });
    const utc = json(await post({ venue: 'NY utc date', date_utc: '2020-07-15 10:00:00' }));
    expect(utc).toMatchObject({ date: '2020-07-15 06:00:00', date_utc: '2020-07-15 10:00:00' });
    const stamp = json(await post({ venue: 'NY timestamp', date: 1500000000 }));
    expect(stamp).toMatchObject({ date: '2017-07-13 22:40:00', date_utc: '2017-07-14 02:40:00' });
  });
});
