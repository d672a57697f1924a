/**
 * POST /events: the representation of a created event, dates and
 * time zones, and the validation of every field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  EDITOR,
  type TestApp,
  countAll,
  createEventOk,
  insertCategory,
  insertOrganizer,
  insertTag,
  insertVenue,
  json,
  makeEventInput,
  openTestApp,
} from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { ORGANIZER_KEYS } from '../helpers/representations.js';

const { engines } = await routeEnginesUnderTest();

/** Keys of sample 12-create-event-minimal.json, in order. */
const SAMPLE_12_KEYS = [
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
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
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
  'cost',
  'cost_details',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'categories',
  'tags',
  'venue',
  'organizer',
  'custom_fields',
];
/** Embedded venue of sample 10 (no province, no excerpt, no image: empty members are dropped). */
const SAMPLE_10_VENUE_KEYS = [
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
];
const SAMPLE_10_ORGANIZER_KEYS = ORGANIZER_KEYS;
const SAMPLE_10_TERM_KEYS = ['name', 'slug', 'term_group', 'term_taxonomy_id', 'taxonomy', 'description', 'parent', 'count', 'filter', 'id', 'urls'];

const WALL_CLOCK = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

function details(wall: string) {
  const [date, time] = wall.split(' ') as [string, string];
  const [year, month, day] = date.split('-');
  const [hour, minutes, seconds] = time.split(':');
  return { year, month, day, hour, minutes, seconds };
}

/** `YYYY-MM-DD` of an instant in UTC. */
const utcDay = (instant: Date) => instant.toISOString().slice(0, 10);

describe.each(engines)('$name engine: POST /events', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (payload: unknown, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method: 'POST', url: `${API}/events`, headers, payload: payload as Record<string, unknown> });

  /** Posts a body that must be refused; checks the code and the named parameters, and that nothing was stored. */
  async function expectRejected(payload: unknown, code: string, params: string[]) {
    const before = await countAll(t.storage);
    const response = await post(payload);
    const body = json<{ code: string; data: { status: number; params: unknown } }>(response);
    expect(response.statusCode, response.body).toBe(400);
    expect(body.code).toBe(code);
    expect(body.data.status).toBe(400);
    const named = Array.isArray(body.data.params) ? body.data.params : Object.keys(body.data.params as object);
    for (const param of params) expect(named).toContain(param);
    expect(await countAll(t.storage)).toEqual(before);
    return body;
  }

  describe('representation', () => {
    it('answers a minimal create with 201 and the reference object, keys in the reference order', async () => {
      const before = Date.now();
      const response = await post({ title: 'Peer Third', start_date: '2027-01-20 12:00:00', end_date: '2027-01-20 13:00:00' });
      expect(response.statusCode).toBe(201);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const body = json(response);
      expect(Object.keys(body)).toEqual([...SAMPLE_12_KEYS, 'ticketed', 'post_parent']);

      const id = body.id as number;
      expect(Number.isInteger(id)).toBe(true);
      expect(id).toBeGreaterThan(0);
      expect(body).toMatchObject({
        global_id: `localhost?id=${id}`,
        global_id_lineage: [`localhost?id=${id}`],
        author: '0',
        status: 'publish',
        url: 'http://localhost:80/event/peer-third/',
        rest_url: `http://localhost:80${API}/events/${id}`,
        title: 'Peer Third',
        description: '',
        excerpt: '',
        slug: 'peer-third',
        image: false,
        all_day: false,
        start_date: '2027-01-20 12:00:00',
        start_date_details: { year: '2027', month: '01', day: '20', hour: '12', minutes: '00', seconds: '00' },
        end_date: '2027-01-20 13:00:00',
        end_date_details: { year: '2027', month: '01', day: '20', hour: '13', minutes: '00', seconds: '00' },
        utc_start_date: '2027-01-20 12:00:00',
        utc_start_date_details: { year: '2027', month: '01', day: '20', hour: '12', minutes: '00', seconds: '00' },
        utc_end_date: '2027-01-20 13:00:00',
        utc_end_date_details: { year: '2027', month: '01', day: '20', hour: '13', minutes: '00', seconds: '00' },
        timezone: 'UTC',
        timezone_abbr: 'UTC',
        cost: '',
        cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
        // No website sent: the permalink.
        website: 'http://localhost:80/event/peer-third/',
        show_map: false,
        show_map_link: false,
        hide_from_listings: false,
        sticky: false,
        featured: false,
        categories: [],
        tags: [],
        venue: [],
        organizer: [],
        custom_fields: [],
        ticketed: false,
        post_parent: 0,
      });
      expect(Object.keys(body.cost_details as object)).toEqual(['currency_symbol', 'currency_code', 'currency_position', 'values']);
      // Publication and modification dates: now, in the reference's format.
      for (const key of ['date', 'date_utc', 'modified', 'modified_utc']) expect(body[key]).toMatch(WALL_CLOCK);
      const published = Date.parse(`${(body.date_utc as string).replace(' ', 'T')}Z`);
      expect(published).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(published).toBeLessThanOrEqual(Date.now());
      // Creates answer in the default context: no json_ld, and no Location header.
      expect(body).not.toHaveProperty('json_ld');
      expect(response.headers.location).toBeUndefined();
    });

    it('builds rest_url and url from the host the request came in on', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, host: 'calendar.example.org:8443' },
        payload: makeEventInput({ title: 'Host check' }),
      });
      expect(response.statusCode).toBe(201);
      const body = json(response);
      expect(body.rest_url).toBe(`http://calendar.example.org:8443${API}/events/${body.id as number}`);
      expect(body.url).toBe('http://calendar.example.org:8443/event/host-check/');
      expect(body.global_id).toBe(`calendar.example.org?id=${body.id as number}`);
    });

    it('creates a full event like sample 10, embedding the venue, organizers and terms in the reference shapes', async () => {
      const venue = await insertVenue(t.storage, {
        name: 'Peer Hall',
        nameKey: 'peer hall',
        slug: 'peer-hall',
        description: 'A venue created by the peer sample script',
        address: '1 Loopback Way',
        city: 'Localhost',
        country: 'United States',
        state: 'CA',
        province: '',
        zip: '90210',
        phone: '+1 555 0100',
        website: 'http://example.test/hall',
        stateprovince: 'CA',
        showMap: true,
        showMapLink: false,
        location: null,
        geoSource: null,
      });
      const organizer = await insertOrganizer(t.storage, {
        name: 'Peer Org',
        nameKey: 'peer org',
        slug: 'peer-org',
        description: 'An organizer created by the peer sample script',
        phone: '+1 555 0199',
        website: 'http://example.test/org',
        email: 'org@example.test',
      });
      const category = await insertCategory(t.storage, { name: 'Peer Category', nameKey: 'peer category', slug: 'peer-category', description: 'cat desc' });
      const tag = await insertTag(t.storage, { name: 'Peer Tag', nameKey: 'peer tag', slug: 'peer-tag', description: 'tag desc' });

      const response = await post({
        title: 'Peer Launch',
        description: '<p>Event created by the peer sample script.</p>',
        excerpt: 'Short excerpt',
        start_date: '2026-12-21 18:00:00',
        end_date: '2026-12-21 21:30:00',
        timezone: 'UTC',
        all_day: false,
        cost: '10',
        website: 'http://example.test/launch',
        venue: venue._id,
        organizer: [organizer._id],
        categories: [category._id],
        tags: [tag._id],
        featured: true,
      });
      expect(response.statusCode, response.body).toBe(201);
      const body = json(response);
      expect(Object.keys(body)).toEqual([...SAMPLE_12_KEYS, 'ticketed', 'post_parent']);
      expect(body).toMatchObject({
        title: 'Peer Launch',
        description: '<p>Event created by the peer sample script.</p>',
        excerpt: '<p>Short excerpt</p>',
        slug: 'peer-launch',
        timezone: 'UTC',
        timezone_abbr: 'UTC',
        cost: '$10',
        cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: ['10'] },
        website: 'http://example.test/launch',
        featured: true,
      });

      const embeddedVenue = body.venue as Record<string, unknown>;
      expect(Object.keys(embeddedVenue)).toEqual(SAMPLE_10_VENUE_KEYS);
      expect(embeddedVenue).toMatchObject({
        id: venue._id,
        author: '1',
        status: 'publish',
        url: 'http://localhost:80/venue/peer-hall/',
        venue: 'Peer Hall',
        description: '<p>A venue created by the peer sample script</p>',
        slug: 'peer-hall',
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
        global_id: `localhost?id=${venue._id}`,
        global_id_lineage: [`localhost?id=${venue._id}`],
      });

      const organizers = body.organizer as Array<Record<string, unknown>>;
      expect(organizers).toHaveLength(1);
      expect(Object.keys(organizers[0] as object)).toEqual(SAMPLE_10_ORGANIZER_KEYS);
      expect(organizers[0]).toMatchObject({
        id: organizer._id,
        organizer: 'Peer Org',
        description: '<p>An organizer created by the peer sample script</p>',
        slug: 'peer-org',
        phone: '+1 555 0199',
        website: 'http://example.test/org',
        email: 'org@example.test',
        url: 'http://localhost:80/organizer/peer-org/',
      });

      const [categoryOut] = body.categories as Array<Record<string, unknown>>;
      const [tagOut] = body.tags as Array<Record<string, unknown>>;
      expect(Object.keys(categoryOut as object)).toEqual(SAMPLE_10_TERM_KEYS);
      expect(Object.keys(tagOut as object)).toEqual(SAMPLE_10_TERM_KEYS);
      expect(categoryOut).toEqual({
        name: 'Peer Category',
        slug: 'peer-category',
        term_group: 0,
        term_taxonomy_id: category._id,
        taxonomy: 'tribe_events_cat',
        description: 'cat desc',
        parent: 0,
        count: 1,
        filter: 'raw',
        id: category._id,
        urls: { self: `http://localhost:80${API}/categories/${category._id}`, collection: `http://localhost:80${API}/categories` },
      });
      expect(tagOut).toEqual({
        name: 'Peer Tag',
        slug: 'peer-tag',
        term_group: 0,
        term_taxonomy_id: tag._id,
        taxonomy: 'post_tag',
        description: 'tag desc',
        parent: 0,
        count: 1,
        filter: 'raw',
        id: tag._id,
        urls: { self: `http://localhost:80${API}/tags/${tag._id}`, collection: `http://localhost:80${API}/tags` },
      });
      expect(body).not.toHaveProperty('json_ld');
    });

    it('links several organizers in the order sent, by id or {id}, collapsing duplicates', async () => {
      const a = await insertOrganizer(t.storage);
      const b = await insertOrganizer(t.storage);
      const body = await createEventOk(t.app, { organizer: [b._id, { id: a._id }, b._id] });
      expect((body.organizer as Array<{ id: number }>).map((o) => o.id)).toEqual([b._id, a._id]);
    });

    it('accepts categories and tags by slug and by name, and a venue as {id}', async () => {
      const venue = await insertVenue(t.storage);
      const category = await insertCategory(t.storage, { name: 'Jazz Nights', nameKey: 'jazz nights', slug: 'jazz-nights' });
      const tag = await insertTag(t.storage, { name: 'Outdoor', nameKey: 'outdoor', slug: 'open-air' });
      const body = await createEventOk(t.app, { venue: { id: venue._id }, categories: 'jazz-nights', tags: ['Outdoor'] });
      expect((body.venue as { id: number }).id).toBe(venue._id);
      expect((body.categories as Array<{ id: number }>).map((c) => c.id)).toEqual([category._id]);
      expect((body.tags as Array<{ id: number }>).map((c) => c.id)).toEqual([tag._id]);
    });

    it('gives the editor token (no author attached) author "0", and an explicit author as a string', async () => {
      expect((await createEventOk(t.app)).author).toBe('0');
      expect((await createEventOk(t.app, { author: 12 })).author).toBe('12');
      expect((await createEventOk(t.app, { author: '13' })).author).toBe('13');
    });

    it('gives a second event with the same title the slug <slug>-2', async () => {
      const first = await createEventOk(t.app, { title: 'Twin Peaks Night' });
      const second = await createEventOk(t.app, { title: 'Twin Peaks Night' });
      expect(first.slug).toBe('twin-peaks-night');
      expect(second.slug).toBe('twin-peaks-night-2');
      expect(second.url).toBe('http://localhost:80/event/twin-peaks-night-2/');
    });
  });

  describe('cost', () => {
    it.each([
      { cost: '10', out: '$10', symbol: '', position: '', values: ['10'] },
      { cost: '20$', out: '20$', symbol: '$', position: 'postfix', values: ['20'] },
      { cost: ['0$', '20$', '30$'], out: 'Free – 30$', symbol: '$', position: 'postfix', values: ['0', '20', '30'] },
    ])('cost $cost → "$out"', async ({ cost, out, symbol, position, values }) => {
      const body = await createEventOk(t.app, { cost });
      expect(body.cost).toBe(out);
      expect(body.cost_details).toEqual({ currency_symbol: symbol, currency_code: '', currency_position: position, values });
    });
  });

  describe('dates and time zones', () => {
    it('reads the dates in the event time zone and derives UTC and the abbreviation (winter: EST)', async () => {
      const body = await createEventOk(t.app, {
        timezone: 'America/New_York',
        start_date: '2026-12-21 18:00:00',
        end_date: '2026-12-21 21:30:00',
      });
      expect(body).toMatchObject({
        timezone: 'America/New_York',
        timezone_abbr: 'EST',
        start_date: '2026-12-21 18:00:00',
        end_date: '2026-12-21 21:30:00',
        utc_start_date: '2026-12-21 23:00:00',
        utc_end_date: '2026-12-22 02:30:00',
        utc_end_date_details: details('2026-12-22 02:30:00'),
      });
    });

    it('uses daylight time in summer (EDT)', async () => {
      const body = await createEventOk(t.app, {
        timezone: 'America/New_York',
        start_date: '2026-07-04 20:00:00',
        end_date: '2026-07-04 22:00:00',
      });
      expect(body).toMatchObject({ timezone_abbr: 'EDT', utc_start_date: '2026-07-05 00:00:00', utc_end_date: '2026-07-05 02:00:00' });
    });

    it('reads the dates in the site time zone when none is given', async () => {
      const other = await openTestApp(engine, { SITE_TIMEZONE: 'Europe/Berlin' });
      try {
        const response = await other.app.inject({
          method: 'POST',
          url: `${API}/events`,
          headers: EDITOR,
          payload: makeEventInput({ start_date: '2026-12-21 18:00:00', end_date: '2026-12-21 20:00:00' }),
        });
        expect(response.statusCode).toBe(201);
        expect(json(response)).toMatchObject({
          timezone: 'Europe/Berlin',
          timezone_abbr: 'CET',
          start_date: '2026-12-21 18:00:00',
          utc_start_date: '2026-12-21 17:00:00',
        });
      } finally {
        await other.close();
      }
    });

    it('accepts a WordPress UTC±N offset as the time zone, and it is its own abbreviation', async () => {
      const body = await createEventOk(t.app, { timezone: 'UTC+5.5', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' });
      expect(body).toMatchObject({ timezone: 'UTC+5.5', timezone_abbr: 'UTC+5.5', start_date: '2030-01-01 10:00:00', utc_start_date: '2030-01-01 04:30:00' });
    });

    it('accepts natural language ("tomorrow 9am")', async () => {
      const now = new Date();
      const body = await createEventOk(t.app, { start_date: 'tomorrow 9am', end_date: 'tomorrow 11am' });
      const tomorrow = [utcDay(new Date(now.getTime() + 86_400_000)), utcDay(new Date(Date.now() + 86_400_000))];
      expect(tomorrow.map((d) => `${d} 09:00:00`)).toContain(body.start_date);
      expect(body.end_date).toBe((body.start_date as string).replace('09:00:00', '11:00:00'));
    });

    it('accepts a Unix timestamp and an ISO 8601 date with an offset', async () => {
      // 1893456000 = 2030-01-01 00:00:00 UTC; 05:00+02:00 = 03:00 UTC.
      const body = await createEventOk(t.app, { start_date: 1893456000, end_date: '2030-01-01T05:00:00+02:00' });
      expect(body).toMatchObject({
        start_date: '2030-01-01 00:00:00',
        utc_start_date: '2030-01-01 00:00:00',
        end_date: '2030-01-01 03:00:00',
        utc_end_date: '2030-01-01 03:00:00',
      });
      const numericString = await createEventOk(t.app, { start_date: '1893456000', end_date: '1893459600' });
      expect(numericString).toMatchObject({ start_date: '2030-01-01 00:00:00', end_date: '2030-01-01 01:00:00' });
    });

    it('forces all-day events to 00:00:00–23:59:59, also over several days', async () => {
      const oneDay = await createEventOk(t.app, { all_day: true, start_date: '2030-01-05 09:00:00', end_date: '2030-01-05 17:00:00' });
      expect(oneDay).toMatchObject({ all_day: true, start_date: '2030-01-05 00:00:00', end_date: '2030-01-05 23:59:59' });

      const multi = await createEventOk(t.app, {
        all_day: true,
        timezone: 'America/New_York',
        start_date: '2030-01-05 09:00:00',
        end_date: '2030-01-10 11:00:00',
      });
      expect(multi).toMatchObject({
        all_day: true,
        start_date: '2030-01-05 00:00:00',
        end_date: '2030-01-10 23:59:59',
        utc_start_date: '2030-01-05 05:00:00',
        utc_end_date: '2030-01-11 04:59:59',
      });
    });

    it('refuses an end before the start, naming end_date', async () => {
      await expectRejected(makeEventInput({ start_date: '2030-01-02 10:00:00', end_date: '2030-01-01 10:00:00' }), 'rest_invalid_param', ['end_date']);
    });

    it.each(['"before my birthday"', 'foo', 'not a strtotime parsable string'])('refuses the start date %j, naming start_date', async (start) => {
      const body = await expectRejected(makeEventInput({ start_date: start }), 'rest_invalid_param', ['start_date']);
      expect(Object.keys(body.data.params as object)).toEqual(['start_date']);
    });

    it('refuses a junk end date, naming end_date', async () => {
      await expectRejected(makeEventInput({ end_date: 'foo' }), 'rest_invalid_param', ['end_date']);
    });

    it('refuses an unknown time zone, naming timezone', async () => {
      await expectRejected(makeEventInput({ timezone: 'Mars/Olympus_Mons' }), 'rest_invalid_param', ['timezone']);
    });
  });

  describe('validation', () => {
    it('refuses a missing title with rest_missing_callback_param', async () => {
      const body = await expectRejected(makeEventInput({ title: undefined }), 'rest_missing_callback_param', ['title']);
      expect(body.data.params).toEqual(['title']);
    });

    it('names every missing required parameter', async () => {
      const body = await expectRejected({}, 'rest_missing_callback_param', ['title', 'start_date', 'end_date']);
      expect([...(body.data.params as string[])].sort()).toEqual(['end_date', 'start_date', 'title']);
    });

    it.each([
      { field: 'title', value: '' },
      { field: 'title', value: '   ' },
      { field: 'start_date', value: '' },
      { field: 'description', value: '' },
      { field: 'slug', value: '' },
      { field: 'title', value: 42 },
      { field: 'status', value: 'kinda_thinking_about_it' },
      { field: 'author', value: '' },
      { field: 'author', value: 0 },
      { field: 'date', value: 'foo' },
      { field: 'date_utc', value: 'foo' },
      { field: 'website', value: 'foo' },
      { field: 'website', value: 'javascript:alert(1)' },
      { field: 'post_parent', value: 999999 },
    ])('refuses $field = $value as invalid', async ({ field, value }) => {
      await expectRejected(makeEventInput({ [field]: value }), 'rest_invalid_param', [field]);
    });

    it('refuses featured: "yes" with the type message', async () => {
      const body = await expectRejected(makeEventInput({ featured: 'yes' }), 'rest_invalid_param', ['featured']);
      expect(body.data.params).toEqual({ featured: 'featured is not of type boolean.' });
    });

    it.each([
      { featured: 'TRUE', expected: true },
      { featured: 1, expected: true },
      { featured: '1', expected: true },
      { featured: '0', expected: false },
      { featured: 'false', expected: false },
      { featured: 0, expected: false },
    ])('coerces featured $featured to $expected', async ({ featured, expected }) => {
      const body = await createEventOk(t.app, { featured });
      expect(body.featured).toBe(expected);
    });

    it('coerces the other flags the same way', async () => {
      const body = await createEventOk(t.app, { show_map: 'true', show_map_link: 1, hide_from_listings: '1', sticky: true, ticketed: 'True' });
      expect(body).toMatchObject({ show_map: true, show_map_link: true, hide_from_listings: true, sticky: true, ticketed: true });
    });

    it('refuses an unknown body field, naming it', async () => {
      const body = await expectRejected(makeEventInput({ foo: 'bar' }), 'rest_invalid_param', ['foo']);
      expect(Object.keys(body.data.params as object)).toEqual(['foo']);
    });

    it('refuses password on create', async () => {
      await expectRejected(makeEventInput({ password: 'secret' }), 'rest_invalid_param', ['password']);
    });

    it('ignores generated fields and answers with the real values', async () => {
      const junk = {
        id: 999_999,
        url: 'http://evil.example/',
        rest_url: 'http://evil.example/rest',
        utc_start_date: '1999-01-01 00:00:00',
        utc_start_date_details: { year: '1999' },
        utc_end_date: '1999-01-01 00:00:00',
        start_date_details: 'junk',
        end_date_details: 'junk',
        timezone_abbr: 'XYZ',
        cost_details: { currency_symbol: '£', values: ['1'] },
        global_id: 'evil?id=1',
        json_ld: { '@type': 'Junk' },
      };
      const response = await post(makeEventInput({ title: 'Generated fields', ...junk }));
      expect(response.statusCode, response.body).toBe(201);
      const body = json(response);
      expect(body.id).not.toBe(999_999);
      expect(body).toMatchObject({
        url: 'http://localhost:80/event/generated-fields/',
        rest_url: `http://localhost:80${API}/events/${body.id as number}`,
        utc_start_date: '2030-06-10 19:00:00',
        utc_end_date: '2030-06-10 21:30:00',
        start_date_details: details('2030-06-10 19:00:00'),
        timezone_abbr: 'UTC',
        cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
        global_id: `localhost?id=${body.id as number}`,
      });
      expect(body).not.toHaveProperty('json_ld');
      expect(await t.storage.events.findById(999_999)).toBeNull();
    });

    it('refuses a $-prefixed body key', async () => {
      await expectRejected({ ...makeEventInput(), $set: { status: 'draft' } }, 'rest_invalid_param', ['$set']);
    });

    it('refuses a $-prefixed key nested in a body value, naming the top-level parameter', async () => {
      await expectRejected(makeEventInput({ venue: { $gt: 0 } }), 'rest_invalid_param', ['venue']);
    });

    it('refuses a $-prefixed query key', async () => {
      const before = await countAll(t.storage);
      const response = await t.app.inject({ method: 'POST', url: `${API}/events?$where=1`, headers: EDITOR, payload: makeEventInput() });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { $where: expect.any(String) } } });
      expect(await countAll(t.storage)).toEqual(before);
    });

    it('refuses invalid JSON from the editor with rest_invalid_json', async () => {
      const before = await countAll(t.storage);
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, 'content-type': 'application/json' },
        payload: '{"title": "Broken",',
      });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ code: 'rest_invalid_json', message: 'Invalid JSON body passed.', data: { status: 400 } });
      expect(await countAll(t.storage)).toEqual(before);
    });

    it('refuses a JSON array body', async () => {
      const before = await countAll(t.storage);
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, 'content-type': 'application/json' },
        payload: JSON.stringify([makeEventInput()]),
      });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ code: expect.stringMatching(/^rest_/), data: { status: 400 } });
      expect(await countAll(t.storage)).toEqual(before);
    });

    it('refuses a __proto__ body key without polluting anything', async () => {
      const before = await countAll(t.storage);
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, 'content-type': 'application/json' },
        payload: `{"title":"Proto","start_date":"2030-01-01 10:00:00","end_date":"2030-01-01 11:00:00","__proto__":{"polluted":true}}`,
      });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({ data: { status: 400 } });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(await countAll(t.storage)).toEqual(before);
    });

    it('refuses an unsupported content type with 415 in the error shape', async () => {
      const before = await countAll(t.storage);
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, 'content-type': 'application/xml' },
        payload: '<event><title>x</title></event>',
      });
      expect(response.statusCode).toBe(415);
      expect(json(response)).toMatchObject({ code: 'rest_unsupported_media_type', data: { status: 415 } });
      expect(await countAll(t.storage)).toEqual(before);
    });

    it('refuses a text/plain body with 415', async () => {
      const before = await countAll(t.storage);
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, 'content-type': 'text/plain' },
        payload: 'title=x',
      });
      expect(response.statusCode).toBe(415);
      expect(json(response)).toMatchObject({ code: 'rest_unsupported_media_type', data: { status: 415 } });
      expect(await countAll(t.storage)).toEqual(before);
    });

    it('accepts a form-encoded create', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/events`,
        headers: { ...EDITOR, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'title=Form+made&start_date=2030-02-01+10%3A00%3A00&end_date=2030-02-01+12%3A00%3A00&featured=1&cost=5',
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(json(response)).toMatchObject({ title: 'Form made', start_date: '2030-02-01 10:00:00', featured: true, cost: '$5' });
    });

    it('refuses a numeric image, pointing out there is no media library', async () => {
      const body = await expectRejected(makeEventInput({ image: 23 }), 'rest_invalid_param', ['image']);
      expect((body.data.params as Record<string, string>).image).toMatch(/media library/);
      const numericString = await expectRejected(makeEventInput({ image: '23' }), 'rest_invalid_param', ['image']);
      expect((numericString.data.params as Record<string, string>).image).toMatch(/media library/);
    });

    it.each(['foo bar', 'ftp://example.com/a.png'])('refuses the image %j', async (image) => {
      await expectRejected(makeEventInput({ image }), 'rest_invalid_param', ['image']);
    });

    it('keeps an image URL as the image object, extension lower-cased', async () => {
      const body = await createEventOk(t.app, { image: 'https://example.com/a/photo.JPG' });
      expect(body.image).toEqual({ url: 'https://example.com/a/photo.JPG', extension: 'jpg' });
    });

    it('refuses an unknown venue id, naming venue', async () => {
      await expectRejected(makeEventInput({ venue: 999_999 }), 'rest_invalid_param', ['venue']);
      await expectRejected(makeEventInput({ venue: { id: 999_999 } }), 'rest_invalid_param', ['venue']);
    });

    it('refuses an organizer id as venue, naming venue', async () => {
      const organizer = await insertOrganizer(t.storage);
      await expectRejected(makeEventInput({ venue: organizer._id }), 'rest_invalid_param', ['venue']);
    });

    it('refuses an unknown organizer id, naming organizer, even next to a known one', async () => {
      const organizer = await insertOrganizer(t.storage);
      await expectRejected(makeEventInput({ organizer: [organizer._id, 999_998] }), 'rest_invalid_param', ['organizer']);
      await expectRejected(makeEventInput({ organizer: 'foo' }), 'rest_invalid_param', ['organizer']);
    });

    it('refuses unknown category and tag ids, naming categories and tags', async () => {
      const body = await expectRejected(makeEventInput({ categories: [999_997], tags: [999_996] }), 'rest_invalid_param', ['categories', 'tags']);
      expect(Object.keys(body.data.params as object).sort()).toEqual(['categories', 'tags']);
    });

    it('names every bad parameter of one body at once', async () => {
      const body = await expectRejected(makeEventInput({ venue: 999_999, organizer: [999_998], website: 'foo', end_date: 'foo' }), 'rest_invalid_param', [
        'venue',
        'organizer',
        'website',
        'end_date',
      ]);
      expect(body.data.params).toEqual(expect.objectContaining({ venue: expect.any(String), website: expect.any(String) }));
    });

    it('refuses an oversized title', async () => {
      await expectRejected(makeEventInput({ title: 'x'.repeat(1001) }), 'rest_invalid_param', ['title']);
    });
  });
});
