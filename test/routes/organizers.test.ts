/**
 * Organizers: create, validation, de-duplication (also under concurrency), read by id and slug,
 * partial update and trash — the reference's OrganizerInsertionCest, OrganizerSingleCest,
 * OrganizerSingleSlugCest, OrganizerUpdateCest and OrganizerDeletionCest with our
 * differences. Lists are in ./linked-post-lists.test.ts.
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
import { ORGANIZER_KEYS } from '../helpers/representations.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
type ErrorBody = { code: string; message: string; data: { status: number; params?: unknown } };

/** The editor token carries author 1, like the administrator of the samples. */
const ENV = {
  API_TOKENS: `editor:${EDITOR_TOKEN}:1,viewer:${VIEWER_TOKEN}:${VIEWER_AUTHOR_ID}`,
  PUBLIC_URL: 'http://127.0.0.1:8080',
};
const SITE = 'http://127.0.0.1:8080';

/** The request of sample 07-create-organizer. */
const SAMPLE_07_REQUEST = {
  organizer: 'Peer Org mwpwdya6',
  phone: '+1 555 0199',
  email: 'org@example.test',
  website: 'http://example.test/org',
  description: 'An organizer created by the peer sample script',
};
/** Keys of sample 07-create-organizer.json, in order. */
const SAMPLE_07_KEYS = ORGANIZER_KEYS;
/** Keys of sample 33-organizer-by-id.json: json_ld after email, before the global ids. */
const SAMPLE_33_KEYS = [...SAMPLE_07_KEYS.slice(0, 14), 'json_ld', ...SAMPLE_07_KEYS.slice(14)];
const ALL_KEYS = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'organizer',
  'description',
  'excerpt',
  'slug',
  'image',
  'phone',
  'website',
  'email',
  'json_ld',
  'global_id',
  'global_id_lineage',
];
const OPTIONAL_TEXT = ['phone', 'website', 'email', 'description'] as const;
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe.each(engines)('$name engine: organizers', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, ENV);
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (payload: unknown, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method: 'POST', url: `${API}/organizers`, headers, payload: payload as Body });
  const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `${API}${path}`, headers });
  const write = (method: 'POST' | 'PUT' | 'PATCH', path: string, payload: unknown, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method, url: `${API}${path}`, headers, payload: payload as Body });
  const del = (path: string, headers: Record<string, string> = EDITOR) => t.app.inject({ method: 'DELETE', url: `${API}${path}`, headers });

  async function createOk(payload: Body): Promise<Body> {
    const response = await post(payload);
    expect(response.statusCode, response.body).toBe(201);
    return json(response);
  }

  async function expectRejected(payload: unknown, code: string, params: string[]): Promise<ErrorBody> {
    const before = await snapshot(t.storage);
    const response = await post(payload);
    const body = json<ErrorBody>(response);
    expect(response.statusCode, response.body).toBe(400);
    expect(body.code).toBe(code);
    const named = Array.isArray(body.data.params) ? body.data.params : Object.keys(body.data.params as object);
    expect(named).toEqual(params);
    expect(await snapshot(t.storage)).toEqual(before);
    return body;
  }

  const organizersNamed = async (name: string) => t.storage.organizers.find({ filter: { nameKey: name.toLowerCase() }, sort: [['_id', 1]] });

  describe('POST /organizers', () => {
    it('creates sample 07: 201, every field echoed in the reference shape and key order', async () => {
      const response = await post(SAMPLE_07_REQUEST);
      expect(response.statusCode, response.body).toBe(201);
      const body = json(response);
      expect(Object.keys(body)).toEqual(SAMPLE_07_KEYS);
      const id = body.id as number;
      expect(body).toEqual({
        id,
        author: '1',
        status: 'publish',
        date: expect.stringMatching(WALL_CLOCK),
        date_utc: expect.stringMatching(WALL_CLOCK),
        modified: expect.stringMatching(WALL_CLOCK),
        modified_utc: expect.stringMatching(WALL_CLOCK),
        url: `${SITE}/organizer/peer-org-mwpwdya6/`,
        organizer: 'Peer Org mwpwdya6',
        description: '<p>An organizer created by the peer sample script</p>',
        slug: 'peer-org-mwpwdya6',
        phone: '+1 555 0199',
        website: 'http://example.test/org',
        email: 'org@example.test',
        global_id: `127.0.0.1?id=${id}`,
        global_id_lineage: [`127.0.0.1?id=${id}`],
      });
      expect(await t.storage.organizers.findById(id)).toMatchObject({ name: 'Peer Org mwpwdya6', nameKey: 'peer org mwpwdya6', authorId: 1 });
    });

    it('refuses anonymous callers with 401 and viewers with 403, storing nothing', async () => {
      const before = await countAll(t.storage);
      expect((await post({ organizer: 'Anonymous org' }, {})).statusCode).toBe(401);
      expect((await post({ organizer: 'Viewer org' }, VIEWER)).statusCode).toBe(403);
      expect(await countAll(t.storage)).toEqual(before);
    });

    it('accepts post fields: author as a string, timestamps for date and date_utc, status draft; timezone is ignored (L47)', async () => {
      const body = await createOk({
        organizer: 'Post fields org',
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
        date: '2017-07-14 02:40:00',
        date_utc: '2017-07-14 02:40:00',
        description: '<p>Some description</p>',
      });
      expect((await t.storage.organizers.findById(body.id as number))?.status).toBe('draft');
    });

    it('echoes the optional meta and the image, in the reference key order; e-mail is not format-checked', async () => {
      const body = await createOk({
        organizer: 'Meta org',
        phone: '123-456',
        email: 'not really an e-mail',
        website: 'https://meta.example/',
        image: 'https://meta.example/logo.PNG',
        description: 'Para one\n\nPara two',
      });
      const keys = Object.keys(body);
      expect(keys).toEqual(ALL_KEYS.filter((k) => keys.includes(k)));
      expect(body).toMatchObject({
        phone: '123-456',
        email: 'not really an e-mail',
        website: 'https://meta.example/',
        image: { url: 'https://meta.example/logo.PNG', extension: 'png' },
        description: '<p>Para one</p>\n<p>Para two</p>',
      });
    });

    it('drops empty optional fields from the representation', async () => {
      const body = await createOk({ organizer: 'Empty org', phone: '', email: '', website: '', description: '', image: '' });
      expect(Object.keys(body)).toEqual([
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
        'global_id',
        'global_id_lineage',
      ]);
    });

    it('ignores generated fields sent back (slug, url, id, global_id, json_ld, excerpt)', async () => {
      const body = await createOk({ organizer: 'Generated org', id: 424242, slug: 'mine', url: 'http://x/', json_ld: {}, excerpt: 'x', global_id: 'x' });
      expect(body.id).not.toBe(424242);
      expect(body).toMatchObject({ slug: 'generated-org', url: `${SITE}/organizer/generated-org/` });
      expect(body).not.toHaveProperty('excerpt');
    });

    it('refuses venue fields (organizers have no address or map flags)', async () => {
      await expectRejected({ organizer: 'Addressed org', address: '1 Main St' }, 'rest_invalid_param', ['address']);
      await expectRejected({ organizer: 'Mapped org', show_map: true }, 'rest_invalid_param', ['show_map']);
      await expectRejected({ organizer: 'Geo org', geo_lat: 1, geo_lng: 2 }, 'rest_invalid_param', ['geo_lat', 'geo_lng']);
    });
  });

  describe('POST /organizers validation (L86, L107)', () => {
    it('refuses a missing name with rest_missing_callback_param naming organizer', async () => {
      const body = await expectRejected({ email: 'a@b.c' }, 'rest_missing_callback_param', ['organizer']);
      expect(body.message).toBe('Missing parameter(s): organizer');
    });

    it.each([
      ['empty', ''],
      ['blank', ' \t '],
    ])('refuses an %s name naming organizer', async (_label, organizer) => {
      await expectRejected({ organizer }, 'rest_invalid_param', ['organizer']);
    });

    it.each([
      ['author', { author: 'foo' }],
      ['author', { author: -3 }],
      ['date', { date: 'foo' }],
      ['date_utc', { date_utc: 'foo' }],
      ['status', { status: 'kinda_thinking_about_it' }],
      ['website', { website: 'foo' }],
      ['website', { website: 'javascript:alert(1)' }],
      ['image', { image: 23 }],
      ['image', { image: 'foo bar' }],
      ['email', { email: ['a@b.c'] }],
      ['phone', { phone: 5551234 }],
      ['unknown', { unknown: true }],
    ])('refuses a bad %s, naming it: %j', async (param, fields) => {
      await expectRejected({ organizer: `Bad ${param} org`, ...fields }, 'rest_invalid_param', [param]);
    });
  });

  describe('de-duplication on create (OrganizerInsertionCest L195, L244)', () => {
    it('same name (and description) → same id with 201; lower-cased name + description → same id', async () => {
      const first = await createOk({ organizer: 'An organizer', description: 'An organizer description' });
      const again = await post({ organizer: 'An organizer', description: 'An organizer description' });
      expect(again.statusCode).toBe(201);
      expect(json(again).id).toBe(first.id);
      expect((await createOk({ organizer: 'An organizer' })).id).toBe(first.id);
      expect((await createOk({ organizer: 'an organizer', description: 'an organizer description' })).id).toBe(first.id);
      expect(await organizersNamed('an organizer')).toHaveLength(1);
    });

    it('a different description makes a new record', async () => {
      const first = await createOk({ organizer: 'Twin org', description: 'One' });
      const second = await createOk({ organizer: 'Twin org', description: 'Two' });
      expect(second.id).not.toBe(first.id);
      expect(await organizersNamed('twin org')).toHaveLength(2);
    });

    // Our decision (the reference writes the sent fields onto the duplicate): the existing record
    // is the answer, unchanged.
    it('de-duplicates with any subset of phone, e-mail and website, leaving the record unchanged', async () => {
      const first = await createOk({ organizer: 'Meta twin org', phone: '111', email: 'one@example.org', website: 'http://one.example/' });
      const subsets: Body[] = [{ phone: '222' }, { email: 'two@example.org' }, { website: 'http://two.example/', phone: '333' }, { status: 'draft' }, {}];
      for (const subset of subsets) expect((await createOk({ organizer: 'META TWIN ORG', ...subset })).id).toBe(first.id);
      expect(await organizersNamed('meta twin org')).toHaveLength(1);
      expect(json(await get(`/organizers/${first.id as number}`))).toMatchObject({
        organizer: 'Meta twin org',
        status: 'publish',
        phone: '111',
        email: 'one@example.org',
        website: 'http://one.example/',
      });
    });

    // Our decision: a trashed organizer is not revived by a create with its name.
    it('does not revive a trashed record', async () => {
      const old = await createOk({ organizer: 'Phoenix org', email: 'old@example.org' });
      expect((await del(`/organizers/${old.id as number}`)).statusCode).toBe(200);
      const fresh = await createOk({ organizer: 'Phoenix org' });
      expect(fresh.id).not.toBe(old.id);
      expect(fresh).toMatchObject({ status: 'publish', slug: 'phoenix-org-2' });
      expect(fresh).not.toHaveProperty('email');
      expect((await t.storage.organizers.findById(old.id as number))?.status).toBe('trash');
    });

    it('does not de-duplicate against venues of the same name', async () => {
      const venue = await insertVenue(t.storage, { name: 'Dual use', nameKey: 'dual use', slug: 'dual-use' });
      const organizer = await createOk({ organizer: 'Dual use' });
      expect(organizer.id).not.toBe(venue._id);
      expect(organizer.slug).toBe('dual-use');
    });
  });

  describe('GET /organizers/{id} and /organizers/by-slug/{slug}', () => {
    it('reads sample 33: the created organizer plus json_ld, keys in the reference order', async () => {
      const created = await createOk({ ...SAMPLE_07_REQUEST, organizer: 'Peer Org read' });
      const response = await get(`/organizers/${created.id as number}`);
      expect(response.statusCode).toBe(200);
      const body = json(response);
      expect(Object.keys(body)).toEqual(SAMPLE_33_KEYS);
      const { json_ld: jsonLd, ...rest } = body;
      expect(rest).toEqual(created);
      expect(jsonLd).toEqual({
        '@type': 'Person',
        name: 'Peer Org read',
        description: '&lt;p&gt;An organizer created by the peer sample script&lt;/p&gt;',
        url: 'http://example.test/org',
        telephone: '+1 555 0199',
        email: 'org@example.test',
        sameAs: 'http://example.test/org',
      });
      const bySlug = await get('/organizers/by-slug/peer-org-read');
      expect(bySlug.statusCode).toBe(200);
      expect(json(bySlug)).toEqual(body);
    });

    it('answers a draft with 403 organizer-not-accessible to anonymous callers, and in full to token holders', async () => {
      const draft = await createOk({ organizer: 'Secret org', status: 'draft' });
      for (const path of [`/organizers/${draft.id as number}`, '/organizers/by-slug/secret-org']) {
        const anonymous = await get(path);
        expect(anonymous.statusCode).toBe(403);
        expect(json(anonymous)).toEqual({
          code: 'organizer-not-accessible',
          message: 'The requested organizer is not accessible',
          data: { status: 403 },
        });
        for (const headers of [VIEWER, EDITOR]) expect(json(await get(path, headers))).toEqual(draft);
      }
    });

    it('answers unknown ids and slugs with 404 rest-organizer-not-found, and a venue id too', async () => {
      const venue = await insertVenue(t.storage);
      for (const path of ['/organizers/987654', '/organizers/by-slug/nobody', `/organizers/${venue._id}`, `/organizers/by-slug/${venue.slug}`]) {
        const response = await get(path);
        expect(response.statusCode, path).toBe(404);
        expect(json<ErrorBody>(response).code).toBe('rest-organizer-not-found');
      }
      expect(json<ErrorBody>(await get('/organizers/987654')).message).toBe('Organizer with ID 987654 does not exist.');
    });

    it.each(['/organizers/foo', '/organizers/foo%20bar', '/organizers/foo-bar'])('answers %s with 404 rest_no_route (L55)', async (path) => {
      const response = await get(path);
      expect(response.statusCode).toBe(404);
      expect(json<ErrorBody>(response).code).toBe('rest_no_route');
    });
  });

  describe.each(['PATCH', 'PUT', 'POST'] as const)('%s /organizers/{id} (partial update)', (method) => {
    it('changes only the fields sent (OrganizerUpdateCest L193: omitted meta stays)', async () => {
      const created = await createOk({ ...SAMPLE_07_REQUEST, organizer: `Keeper ${method}` });
      const response = await write(method, `/organizers/${created.id as number}`, { organizer: `Keeper ${method} renamed` });
      expect(response.statusCode, response.body).toBe(200);
      const { modified: _a, modified_utc: _b, ...after } = json(response);
      const { modified: _c, modified_utc: _d, ...before } = created;
      expect(after).toEqual({ ...before, organizer: `Keeper ${method} renamed` });
    });

    it('works by slug too, and ignores a slug in the body', async () => {
      const created = await createOk({ organizer: `Slugged ${method}` });
      const response = await write(method, `/organizers/by-slug/${created.slug as string}`, { phone: '999', slug: 'other' });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toMatchObject({ id: created.id, phone: '999', slug: created.slug });
    });

    it('clears the optional meta sent as "" (keys absent, L164)', async () => {
      const created = await createOk({ ...SAMPLE_07_REQUEST, organizer: `Clearable ${method}`, image: 'https://x.example/a.jpg' });
      const clear = Object.fromEntries([...OPTIONAL_TEXT, 'image'].map((k) => [k, '']));
      const body = json(await write(method, `/organizers/${created.id as number}`, clear));
      for (const key of [...OPTIONAL_TEXT, 'image']) expect(body).not.toHaveProperty(key);
      expect(body.organizer).toBe(`Clearable ${method}`);
    });

    it('sets post fields: author, date, status draft (L53)', async () => {
      const created = await createOk({ organizer: `Post fields ${method}` });
      const body = json(await write(method, `/organizers/${created.id as number}`, { author: '5', date: '2019-05-05 05:05:05', status: 'draft' }));
      expect(body).toMatchObject({ author: '5', date: '2019-05-05 05:05:05', date_utc: '2019-05-05 05:05:05', status: 'draft' });
    });

    it('allows renaming to an existing organizer’s name without merging (L267)', async () => {
      const one = await createOk({ organizer: `First ${method}`, email: 'first@example.org' });
      const two = await createOk({ organizer: `Second ${method}`, email: 'second@example.org' });
      const count = await t.storage.organizers.count({});
      const body = json(await write(method, `/organizers/${two.id as number}`, { organizer: `First ${method}` }));
      expect(body).toMatchObject({ id: two.id, organizer: `First ${method}`, email: 'second@example.org' });
      expect(await t.storage.organizers.count({})).toBe(count);
      expect(json(await get(`/organizers/${one.id as number}`))).toMatchObject({ email: 'first@example.org' });
    });

    it('refuses an empty name and bad values, changing nothing (L93, L116)', async () => {
      const created = await createOk({ organizer: `Guarded ${method}` });
      for (const [param, payload] of [
        ['organizer', { organizer: '' }],
        ['author', { author: 'foo' }],
        ['date', { date: 'foo' }],
        ['date_utc', { date_utc: 'foo' }],
        ['status', { status: 'kinda' }],
        ['website', { website: 'nope' }],
      ] as const) {
        const before = await snapshot(t.storage);
        const response = await write(method, `/organizers/${created.id as number}`, payload);
        expect(response.statusCode).toBe(400);
        expect(Object.keys(json<ErrorBody>(response).data.params as object)).toEqual([param]);
        expect(await snapshot(t.storage)).toEqual(before);
      }
    });

    it('answers 404 for an unknown id, 401 anonymously, 403 for a viewer (L14)', async () => {
      expect(json<ErrorBody>(await write(method, '/organizers/987654', { phone: '1' })).code).toBe('rest-organizer-not-found');
      const created = await createOk({ organizer: `Locked ${method}` });
      const before = await snapshot(t.storage);
      expect((await write(method, `/organizers/${created.id as number}`, { phone: '1' }, {})).statusCode).toBe(401);
      expect((await write(method, `/organizers/${created.id as number}`, { phone: '1' }, VIEWER)).statusCode).toBe(403);
      expect(await snapshot(t.storage)).toEqual(before);
    });
  });

  describe('DELETE /organizers/{id}', () => {
    it('trashes: 200 with status trash (L37), then 410 organizer-is-in-trash (L51)', async () => {
      const created = await createOk({ organizer: 'Doomed org' });
      const first = await del(`/organizers/${created.id as number}`);
      expect(first.statusCode).toBe(200);
      expect(json(first)).toMatchObject({ id: created.id, status: 'trash' });
      const second = await del(`/organizers/${created.id as number}`);
      expect(second.statusCode).toBe(410);
      expect(json(second)).toEqual({ code: 'organizer-is-in-trash', message: 'The organizer is already trashed', data: { status: 410 } });
      expect((await del('/organizers/by-slug/doomed-org')).statusCode).toBe(410);
    });

    it('removes the organizer from its events, keeping the other organizers in order (L66)', async () => {
      const doomed = await createOk({ organizer: 'Leaving org' });
      const [a, b] = [await insertOrganizer(t.storage), await insertOrganizer(t.storage)];
      const venue = await insertVenue(t.storage);
      const event = await createEventOk(t.app, { title: 'Three organizers', venue: venue._id, organizer: [a._id, doomed.id, b._id] });
      const solo = await createEventOk(t.app, { title: 'Only the leaving one', organizer: [doomed.id] });

      expect((await del(`/organizers/${doomed.id as number}`)).statusCode).toBe(200);
      expect((await t.storage.events.findById(event.id as number))?.organizerIds).toEqual([a._id, b._id]);
      expect((await t.storage.events.findById(event.id as number))?.venueId).toBe(venue._id);
      expect((await t.storage.events.findById(solo.id as number))?.organizerIds).toEqual([]);
      const body = json(await get(`/events/${event.id as number}`, EDITOR));
      expect((body.organizer as Body[]).map((o) => o.id)).toEqual([a._id, b._id]);
      expect(json(await get(`/events/${solo.id as number}`)).organizer).toEqual([]);
    });

    it('keeps the trashed organizer from anonymous callers (403) but not from token holders', async () => {
      const created = await createOk({ organizer: 'Binned org' });
      await del(`/organizers/${created.id as number}`);
      expect(json<ErrorBody>(await get(`/organizers/${created.id as number}`)).code).toBe('organizer-not-accessible');
      for (const headers of [EDITOR, VIEWER]) expect(json(await get('/organizers/by-slug/binned-org', headers))).toMatchObject({ status: 'trash' });
    });

    it('answers 404 for an unknown id, 401 anonymously (L24), 403 for a viewer — changing nothing', async () => {
      expect(json<ErrorBody>(await del('/organizers/987654')).code).toBe('rest-organizer-not-found');
      const created = await createOk({ organizer: 'Sturdy org' });
      const before = await snapshot(t.storage);
      expect((await del(`/organizers/${created.id as number}`, {})).statusCode).toBe(401);
      expect((await del(`/organizers/${created.id as number}`, VIEWER)).statusCode).toBe(403);
      expect(await snapshot(t.storage)).toEqual(before);
    });
  });
});

describe.each(engines)('$name engine: concurrent organizer creates (race-free de-duplication)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    // Storage calls yield to the event loop, so the requests interleave (../helpers/latency.ts).
    t = await openTestApp(slowEngine(engine), ENV);
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (payload: Body) => t.app.inject({ method: 'POST', url: `${API}/organizers`, headers: EDITOR, payload });

  it('ten identical POSTs yield one record; all 201 with the same id', async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, () => post({ organizer: 'Race org', email: 'race@example.org' })));
    for (const response of responses) expect(response.statusCode, response.body).toBe(201);
    expect(new Set(responses.map((r) => json(r).id)).size).toBe(1);
    const stored = await t.storage.organizers.find({ filter: { nameKey: 'race org' } });
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ _id: json(responses[0]!).id, slug: 'race-org', email: 'race@example.org' });
  });

  it('names without a Latin slug (🎵🎵) are one record too', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => post({ organizer: '🎵🎵' })));
    for (const response of responses) expect(response.statusCode, response.body).toBe(201);
    expect(new Set(responses.map((r) => json(r).id)).size).toBe(1);
    expect(await t.storage.organizers.count({ nameKey: '🎵🎵' })).toBe(1);
  });
});
