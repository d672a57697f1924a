/**
 * Categories: create, read, update and delete by id (CategoryInsertionCest,
 * CategoryUpdateCest, CategoryDeletionCest, SingleCategoryCest), with our deliberate differences:
 * an unknown id is a 404 `rest-category-not-found`, an update to a slug another term
 * owns is a 409, anonymous writes are 401 before any validation, and no
 * WordPress `_links` member. Lists are in term-lists.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, VIEWER, countAll, createEventOk, json, openTestApp, snapshot } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

const BASE = `http://localhost:80${API}`;
/** Keys of samples 08-create-category.json / 36-category-by-id.json, in order (without `_links`). */
const CATEGORY_KEYS = ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'parent', 'meta', 'url', 'urls'];

type Term = {
  id: number;
  count: number;
  description: string;
  name: string;
  slug: string;
  taxonomy: string;
  parent: number;
  meta: unknown[];
  url: string;
  urls: { self: string; collection: string; up?: string };
};
type ErrorBody = { code: string; message: string; data: { status: number; params?: Record<string, string> | string[]; term_id?: number } };

describe.each(engines)('$name engine: categories', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  const request = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method, url: `${API}${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

  let counter = 0;
  /** A unique name per call, so tests do not collide on names or slugs. */
  const unique = (prefix = 'Category') => `${prefix} ${++counter}`;

  async function create(payload: Record<string, unknown>): Promise<Term> {
    const response = await request('POST', '/categories', payload);
    if (response.statusCode !== 201) throw new Error(`category create failed: ${response.statusCode} ${response.body}`);
    return json<Term>(response);
  }

  async function get(id: number): Promise<Term> {
    const response = await request('GET', `/categories/${id}`, undefined, {});
    expect(response.statusCode, response.body).toBe(200);
    return json<Term>(response);
  }

  /** Sends a write that must be refused with 400; checks the code and the named parameter; nothing is stored or changed. */
  async function expectRefused(method: 'POST' | 'PUT' | 'PATCH', url: string, payload: unknown, code: string, param?: string) {
    const before = await snapshot(t.storage);
    const response = await request(method, url, payload);
    const body = json<ErrorBody>(response);
    expect(response.statusCode, response.body).toBe(400);
    expect(body.code).toBe(code);
    expect(body.data.status).toBe(400);
    if (param !== undefined) {
      if (code === 'rest_missing_callback_param') expect(body.data.params).toEqual([param]);
      else expect(Object.keys(body.data.params as object)).toContain(param);
    }
    expect(await snapshot(t.storage)).toEqual(before);
    return body;
  }

  describe('POST /categories', () => {
    it('creates a category like sample 08: 201, the reference key order, count 0, no `up` without a parent', async () => {
      const response = await request('POST', '/categories', { name: 'Peer Category', description: 'cat desc', slug: 'peer-category' });
      expect(response.statusCode, response.body).toBe(201);
      const body = json<Term>(response);
      expect(Object.keys(body)).toEqual(CATEGORY_KEYS);
      expect(body).toEqual({
        id: expect.any(Number),
        count: 0,
        description: 'cat desc',
        name: 'Peer Category',
        slug: 'peer-category',
        taxonomy: 'tribe_events_cat',
        parent: 0,
        meta: [],
        url: 'http://localhost:80/events/category/peer-category/',
        urls: { self: `${BASE}/categories/${body.id}`, collection: `${BASE}/categories` },
      });
      expect(Object.keys(body.urls)).toEqual(['self', 'collection']);
      expect(body).not.toHaveProperty('_links');
      // Stored as sent: the single read answers the same object.
      expect(await get(body.id)).toEqual(body);
    });

    it('creates a child category: parent and urls.up (CategoryInsertionCest L14)', async () => {
      const parent = await create({ name: unique('Parent') });
      const response = await request('POST', '/categories', { parent: parent.id, name: 'foo child', description: 'A child', slug: 'foo-bar' });
      expect(response.statusCode, response.body).toBe(201);
      const body = json<Term>(response);
      expect(Object.keys(body)).toEqual(CATEGORY_KEYS);
      expect(body).toMatchObject({ name: 'foo child', description: 'A child', slug: 'foo-bar', parent: parent.id, count: 0, meta: [] });
      expect(body.urls).toEqual({
        self: `${BASE}/categories/${body.id}`,
        collection: `${BASE}/categories`,
        up: `${BASE}/categories/${parent.id}`,
      });
    });

    it('takes the parent by slug or by name, and parent 0 as a root', async () => {
      const parent = await create({ name: 'Performing Arts', slug: 'performing-arts' });
      expect((await create({ name: unique(), parent: 'performing-arts' })).parent).toBe(parent.id);
      expect((await create({ name: unique(), parent: 'performing ARTS' })).parent).toBe(parent.id);
      expect((await create({ name: unique(), parent: String(parent.id) })).parent).toBe(parent.id);
      const root = await create({ name: unique(), parent: 0 });
      expect(root.parent).toBe(0);
      expect(root.urls.up).toBeUndefined();
    });

    it('derives the slug from the name when none is given', async () => {
      const body = await create({ name: 'Jazz & Blues Nights!' });
      expect(body.slug).toBe('jazz-and-blues-nights');
      expect(body.description).toBe('');
    });

    it('sanitises an explicit slug', async () => {
      expect((await create({ name: unique(), slug: 'My Own Slug' })).slug).toBe('my-own-slug');
    });

    it('gives a taken slug a -2, then a -3 suffix', async () => {
      const first = await create({ name: 'Open Air', slug: 'open-air' });
      const second = await create({ name: 'Open-air stage', slug: 'open-air' });
      const third = await create({ name: 'Open air cinema', slug: 'open-air' });
      expect([first.slug, second.slug, third.slug]).toEqual(['open-air', 'open-air-2', 'open-air-3']);
      // The same goes for a slug derived from the name.
      expect((await create({ name: 'open air!' })).slug).toBe('open-air-4');
    });

    it('trims the name', async () => {
      expect((await create({ name: '  Spaced out  ' })).name).toBe('Spaced out');
    });

    it('ignores generated fields echoed back from a representation', async () => {
      const body = await create({ name: unique(), id: 999_999, count: 12, taxonomy: 'post_tag', meta: [], url: 'x', urls: {} });
      expect(body.id).not.toBe(999_999);
      expect(body.count).toBe(0);
      expect(body.taxonomy).toBe('tribe_events_cat');
    });

    it('requires name: 400 rest_missing_callback_param naming it', async () => {
      const body = await expectRefused('POST', '/categories', { description: 'No name' }, 'rest_missing_callback_param', 'name');
      expect(body.message).toBe('Missing parameter(s): name');
    });

    it.each([
      ['name', { name: '' }],
      ['name', { name: '   ' }],
      ['name', { name: 42 }],
      ['description', { name: 'Valid', description: '' }],
      ['slug', { name: 'Valid', slug: '' }],
      ['parent', { name: 'Valid', parent: '' }],
      ['parent', { name: 'Valid', parent: 2389 }],
      ['parent', { name: 'Valid', parent: 'foo' }],
      ['parent', { name: 'Valid', parent: -1 }],
      ['parent', { name: 'Valid', parent: [1] }],
    ])('refuses a bad %s (CategoryInsertionCest L99): %j', async (param, payload) => {
      await expectRefused('POST', '/categories', payload, 'rest_invalid_param', param);
    });

    it('refuses an unknown field, naming it', async () => {
      const body = await expectRefused('POST', '/categories', { name: 'Valid', colour: 'red' }, 'rest_invalid_param', 'colour');
      expect(Object.keys(body.data.params as object)).toEqual(['colour']);
    });

    it('refuses a duplicate name under the same parent: 400 term_exists with the existing term id', async () => {
      const existing = await create({ name: 'Jazz' });
      for (const name of ['Jazz', 'JAZZ', ' jazz ']) {
        const body = await expectRefused('POST', '/categories', { name, slug: 'another-slug' }, 'term_exists');
        expect(body.message).toBe('A term with the name provided already exists with this parent.');
        expect(body.data).toMatchObject({ status: 400, term_id: existing.id });
      }
    });

    it('allows the same name under another parent, and refuses it twice there', async () => {
      const root = await create({ name: 'Festivals' });
      const holder = await create({ name: unique('Holder') });
      const child = await create({ name: 'Festivals', parent: holder.id });
      expect(child.parent).toBe(holder.id);
      expect(child.slug).toBe('festivals-2');
      expect(child.id).not.toBe(root.id);
      const body = await expectRefused('POST', '/categories', { name: 'festivals', parent: holder.id }, 'term_exists');
      expect(body.data.term_id).toBe(child.id);
    });

    it('needs a token: anonymous → 401, viewer → 403; nothing is created', async () => {
      const before = await countAll(t.storage);
      const anonymous = await request('POST', '/categories', { name: unique() }, {});
      expect(anonymous.statusCode).toBe(401);
      expect(json<ErrorBody>(anonymous).code).toBe('rest_forbidden');
      // Before any validation: even a body that would be refused.
      const invalid = await request('POST', '/categories', { name: '' }, {});
      expect(invalid.statusCode).toBe(401);
      const viewer = await request('POST', '/categories', { name: unique() }, VIEWER);
      expect(viewer.statusCode).toBe(403);
      expect(json<ErrorBody>(viewer)).toMatchObject({ code: 'rest_forbidden', data: { status: 403 } });
      expect(await countAll(t.storage)).toEqual(before);
    });
  });

  describe('GET /categories/{id}', () => {
    it('reads a category like sample 36, with the number of published events using it (SingleCategoryCest L14)', async () => {
      const parent = await create({ name: unique('Parent') });
      const term = await create({ name: 'Single read', description: 'A description', slug: 'single-read', parent: parent.id });
      await createEventOk(t.app, { title: 'Published one', categories: [term.id] });
      await createEventOk(t.app, { title: 'Published two', categories: [term.id] });
      // Neither a draft nor an event scheduled for later counts.
      await createEventOk(t.app, { title: 'Draft', status: 'draft', categories: [term.id] });
      await createEventOk(t.app, { title: 'Scheduled', date_utc: '2099-01-01 00:00:00', categories: [term.id] });

      const response = await request('GET', `/categories/${term.id}`, undefined, {});
      expect(response.statusCode).toBe(200);
      const body = json<Term>(response);
      expect(Object.keys(body)).toEqual(CATEGORY_KEYS);
      expect(body).toEqual({
        id: term.id,
        count: 2,
        description: 'A description',
        name: 'Single read',
        slug: 'single-read',
        taxonomy: 'tribe_events_cat',
        parent: parent.id,
        meta: [],
        url: 'http://localhost:80/events/category/single-read/',
        urls: { self: `${BASE}/categories/${term.id}`, collection: `${BASE}/categories`, up: `${BASE}/categories/${parent.id}` },
      });
      expect(body).not.toHaveProperty('_links');
    });

    it('counts a trashed event no more', async () => {
      const term = await create({ name: unique() });
      const event = await createEventOk(t.app, { categories: [term.id] });
      expect((await get(term.id)).count).toBe(1);
      expect((await request('DELETE', `/events/${event.id as number}`)).statusCode).toBe(200);
      expect((await get(term.id)).count).toBe(0);
    });

    it('answers 404 rest-category-not-found for an unknown id, id 0 and the id of a tag', async () => {
      const tag = json<{ id: number }>(await request('POST', '/tags', { name: unique('Tag') }));
      for (const id of [2389, 0, tag.id]) {
        const response = await request('GET', `/categories/${id}`, undefined, {});
        expect(response.statusCode).toBe(404);
        expect(json<ErrorBody>(response)).toEqual({
          code: 'rest-category-not-found',
          message: `Category with ID ${id} does not exist.`,
          data: { status: 404 },
        });
      }
    });

    it.each(['foo', 'foo%20bar', '1.5', '-1'])('answers 404 rest_no_route for /categories/%s (SingleCategoryCest L76)', async (id) => {
      const response = await request('GET', `/categories/${id}`, undefined, {});
      expect(response.statusCode).toBe(404);
      expect(json<ErrorBody>(response).code).toBe('rest_no_route');
    });

    it('builds the links from the host and root the request came in on', async () => {
      const term = await create({ name: unique() });
      const response = await t.app.inject({ method: 'GET', url: `/de${API}/categories/${term.id}`, headers: { host: 'cal.example.org' } });
      const body = json<Term>(response);
      expect(body.urls.self).toBe(`http://cal.example.org/de${API}/categories/${term.id}`);
      expect(body.url).toBe(`http://cal.example.org/events/category/${term.slug}/`);
    });
  });

  describe('POST|PUT|PATCH /categories/{id}', () => {
    it('updates every field and answers 200 with the new values (CategoryUpdateCest L14)', async () => {
      const term = await create({ name: unique(), description: 'Old', slug: unique('old').replace(' ', '-').toLowerCase() });
      const parent = await create({ name: unique('New parent') });
      const response = await request('POST', `/categories/${term.id}`, {
        parent: parent.id,
        name: 'Renamed',
        description: 'New description',
        slug: 'renamed-slug',
      });
      expect(response.statusCode, response.body).toBe(200);
      const body = json<Term>(response);
      expect(Object.keys(body)).toEqual(CATEGORY_KEYS);
      expect(body).toEqual({
        id: term.id,
        count: 0,
        description: 'New description',
        name: 'Renamed',
        slug: 'renamed-slug',
        taxonomy: 'tribe_events_cat',
        parent: parent.id,
        meta: [],
        url: 'http://localhost:80/events/category/renamed-slug/',
        urls: { self: `${BASE}/categories/${term.id}`, collection: `${BASE}/categories`, up: `${BASE}/categories/${parent.id}` },
      });
      expect(await get(term.id)).toEqual(body);
    });

    it.each(['PUT', 'PATCH'] as const)('%s is partial: omitted fields keep their values', async (method) => {
      const parent = await create({ name: unique('Parent') });
      const term = await create({ name: unique(), description: 'Keep me', parent: parent.id });
      const response = await request(method, `/categories/${term.id}`, { description: 'Changed' });
      expect(response.statusCode, response.body).toBe(200);
      expect(json<Term>(response)).toEqual({ ...term, description: 'Changed' });
      // An empty body changes nothing.
      const empty = await request(method, `/categories/${term.id}`, {});
      expect(empty.statusCode).toBe(200);
      expect(json<Term>(empty)).toEqual({ ...term, description: 'Changed' });
    });

    it('keeps the slug when the name changes', async () => {
      const term = await create({ name: 'Before rename' });
      const body = json<Term>(await request('PATCH', `/categories/${term.id}`, { name: 'After rename' }));
      expect(body).toMatchObject({ name: 'After rename', slug: 'before-rename' });
    });

    it('answers with the current count', async () => {
      const term = await create({ name: unique() });
      await createEventOk(t.app, { categories: [term.id] });
      expect(json<Term>(await request('PATCH', `/categories/${term.id}`, { description: 'Counted' })).count).toBe(1);
    });

    it('moves a category to the root with parent 0 (no more `up`)', async () => {
      const parent = await create({ name: unique('Parent') });
      const term = await create({ name: unique(), parent: parent.id });
      const body = json<Term>(await request('PATCH', `/categories/${term.id}`, { parent: 0 }));
      expect(body.parent).toBe(0);
      expect(body.urls).toEqual({ self: `${BASE}/categories/${term.id}`, collection: `${BASE}/categories` });
    });

    it.each([
      ['name', { name: '' }],
      ['name', { name: '  ' }],
      ['description', { description: '' }],
      ['slug', { slug: '' }],
      ['parent', { parent: '' }],
      ['parent', { parent: 2389 }],
      ['parent', { parent: 'foo' }],
      ['colour', { colour: 'red' }],
    ])('refuses a bad %s and changes nothing (CategoryUpdateCest L105): %j', async (param, payload) => {
      const term = await create({ name: unique() });
      await expectRefused('POST', `/categories/${term.id}`, payload, 'rest_invalid_param', param);
    });

    it('refuses a parent that is the category itself or one of its descendants, naming parent', async () => {
      const top = await create({ name: unique('Top') });
      const middle = await create({ name: unique('Middle'), parent: top.id });
      const bottom = await create({ name: unique('Bottom'), parent: middle.id });
      await expectRefused('PATCH', `/categories/${top.id}`, { parent: top.id }, 'rest_invalid_param', 'parent');
      await expectRefused('PATCH', `/categories/${top.id}`, { parent: middle.id }, 'rest_invalid_param', 'parent');
      await expectRefused('PATCH', `/categories/${top.id}`, { parent: bottom.slug }, 'rest_invalid_param', 'parent');
      await expectRefused('PUT', `/categories/${middle.id}`, { parent: bottom.id }, 'rest_invalid_param', 'parent');
      // Moving down a branch that is not its own is fine.
      const other = await create({ name: unique('Other') });
      expect(json<Term>(await request('PATCH', `/categories/${top.id}`, { parent: other.id })).parent).toBe(other.id);
      // And the bottom may move up to the top.
      expect(json<Term>(await request('PATCH', `/categories/${bottom.id}`, { parent: top.id })).parent).toBe(top.id);
    });

    it('refuses a slug another category owns: 409 duplicate_term_slug', async () => {
      const owner = await create({ name: unique(), slug: 'owned-slug' });
      const term = await create({ name: unique() });
      const before = await snapshot(t.storage);
      const response = await request('PATCH', `/categories/${term.id}`, { slug: 'owned-slug', description: 'Not applied' });
      expect(response.statusCode).toBe(409);
      const body = json<ErrorBody>(response);
      expect(body.code).toBe('duplicate_term_slug');
      expect(body.message).toBe('The slug “owned-slug” is already in use by another term.');
      expect(body.data.status).toBe(409);
      expect(await snapshot(t.storage)).toEqual(before);
      // A spelling that sanitises to the owned slug clashes too.
      expect((await request('PATCH', `/categories/${term.id}`, { slug: 'Owned Slug' })).statusCode).toBe(409);
      // Its own slug is not a clash.
      const own = await request('PATCH', `/categories/${owner.id}`, { slug: 'owned-slug' });
      expect(own.statusCode).toBe(200);
    });

    it('refuses a name a sibling has: 400 term_exists; renaming in another case is fine', async () => {
      const parent = await create({ name: unique('Parent') });
      const sibling = await create({ name: 'Sibling name', parent: parent.id });
      const term = await create({ name: 'Own name', parent: parent.id });
      const body = await expectRefused('PATCH', `/categories/${term.id}`, { name: 'SIBLING NAME' }, 'term_exists');
      expect(body.data.term_id).toBe(sibling.id);
      expect(json<Term>(await request('PATCH', `/categories/${term.id}`, { name: 'OWN NAME' })).name).toBe('OWN NAME');
    });

    it('refuses a move under a parent where the name is taken: 400 term_exists', async () => {
      const holder = await create({ name: unique('Holder') });
      const taken = await create({ name: 'Moving name', parent: holder.id });
      const mover = await create({ name: 'Moving name' });
      const body = await expectRefused('PATCH', `/categories/${mover.id}`, { parent: holder.id }, 'term_exists');
      expect(body.data.term_id).toBe(taken.id);
    });

    it('answers 404 rest-category-not-found for an unknown id', async () => {
      const response = await request('PATCH', '/categories/2389', { name: 'Nobody' });
      expect(response.statusCode).toBe(404);
      expect(json<ErrorBody>(response).code).toBe('rest-category-not-found');
    });

    it('needs a token: anonymous → 401, viewer → 403; nothing changes', async () => {
      const term = await create({ name: unique() });
      const before = await snapshot(t.storage);
      for (const method of ['POST', 'PUT', 'PATCH'] as const) {
        expect((await request(method, `/categories/${term.id}`, { name: 'Hijacked' }, {})).statusCode).toBe(401);
        expect((await request(method, `/categories/${term.id}`, { name: 'Hijacked' }, VIEWER)).statusCode).toBe(403);
      }
      // Even for an id that does not exist (no existence leak).
      expect((await request('PATCH', '/categories/2389', { name: 'x' }, {})).statusCode).toBe(401);
      expect(await snapshot(t.storage)).toEqual(before);
    });
  });

  describe('DELETE /categories/{id}', () => {
    it('deletes for good and answers 200 with the term as it was, old count included (CategoryDeletionCest L14)', async () => {
      const parent = await create({ name: unique('Parent') });
      const term = await create({ name: 'Doomed', description: 'About to go', slug: 'doomed', parent: parent.id });
      for (let i = 0; i < 3; i++) await createEventOk(t.app, { title: `Doomed ${i}`, categories: [term.id] });
      const expected = { ...term, count: 3 };

      const response = await request('DELETE', `/categories/${term.id}`);
      expect(response.statusCode, response.body).toBe(200);
      const body = json<Term>(response);
      expect(Object.keys(body)).toEqual(CATEGORY_KEYS);
      expect(body).toEqual(expected);
      expect(body.urls.up).toBe(`${BASE}/categories/${parent.id}`);

      const after = await request('GET', `/categories/${term.id}`, undefined, {});
      expect(after.statusCode).toBe(404);
      expect(json<ErrorBody>(after).code).toBe('rest-category-not-found');
      const again = await request('DELETE', `/categories/${term.id}`);
      expect(again.statusCode).toBe(404);
      expect(json<ErrorBody>(again).code).toBe('rest-category-not-found');
      expect(await t.storage.categories.findById(term.id)).toBeNull();
    });

    it('removes the category from every event, keeping their other categories', async () => {
      const doomed = await create({ name: unique('Doomed') });
      const kept = await create({ name: unique('Kept') });
      const published = await createEventOk(t.app, { categories: [doomed.id, kept.id] });
      const draft = await createEventOk(t.app, { status: 'draft', categories: [doomed.id] });
      expect((await request('DELETE', `/categories/${doomed.id}`)).statusCode).toBe(200);

      const read = async (id: number) => json<{ categories: Array<{ id: number }> }>(await request('GET', `/events/${id}`));
      expect((await read(published.id as number)).categories.map((c) => c.id)).toEqual([kept.id]);
      expect((await read(draft.id as number)).categories).toEqual([]);
      expect(await t.storage.events.count({ categoryIds: doomed.id })).toBe(0);
    });

    it("moves the children up to the deleted category's parent", async () => {
      const grandparent = await create({ name: unique('Grandparent') });
      const doomed = await create({ name: unique('Doomed'), parent: grandparent.id });
      const first = await create({ name: unique('Child'), parent: doomed.id });
      const second = await create({ name: unique('Child'), parent: doomed.id });
      const grandchild = await create({ name: unique('Grandchild'), parent: first.id });
      expect((await request('DELETE', `/categories/${doomed.id}`)).statusCode).toBe(200);

      for (const child of [first, second]) {
        const now = await get(child.id);
        expect(now.parent).toBe(grandparent.id);
        expect(now.urls.up).toBe(`${BASE}/categories/${grandparent.id}`);
      }
      // Deeper levels keep their own parent.
      expect((await get(grandchild.id)).parent).toBe(first.id);
    });

    it('turns the children of a deleted root into roots', async () => {
      const doomed = await create({ name: unique('Root') });
      const child = await create({ name: unique('Child'), parent: doomed.id });
      expect((await request('DELETE', `/categories/${doomed.id}`)).statusCode).toBe(200);
      const now = await get(child.id);
      expect(now.parent).toBe(0);
      expect(now.urls.up).toBeUndefined();
    });

    it('can delete a category whose child has its name (the child takes its place)', async () => {
      const holder = await create({ name: unique('Holder') });
      const doomed = await create({ name: 'Same as child', parent: holder.id });
      const child = await create({ name: 'Same as child', parent: doomed.id });
      const response = await request('DELETE', `/categories/${doomed.id}`);
      expect(response.statusCode, response.body).toBe(200);
      expect((await get(child.id)).parent).toBe(holder.id);
    });

    it("refuses with 409 and changes nothing when a child's name is taken at the parent's level", async () => {
      const holder = await create({ name: unique('Holder') });
      const doomed = await create({ name: unique('Doomed'), parent: holder.id });
      const child = await create({ name: 'Clashing child', parent: doomed.id });
      const other = await create({ name: 'Unique child', parent: doomed.id });
      const sibling = await create({ name: 'Clashing child', parent: holder.id });
      const before = await snapshot(t.storage);
      const response = await request('DELETE', `/categories/${doomed.id}`);
      expect(response.statusCode, response.body).toBe(409);
      const body = json<ErrorBody>(response);
      expect(body.code).toBe('term_exists');
      expect(body.data).toMatchObject({ status: 409, term_id: sibling.id });
      expect(await snapshot(t.storage)).toEqual(before);
      // Renaming the child resolves it.
      expect((await request('PATCH', `/categories/${child.id}`, { name: 'Renamed child' })).statusCode).toBe(200);
      expect((await request('DELETE', `/categories/${doomed.id}`)).statusCode).toBe(200);
      expect((await get(child.id)).parent).toBe(holder.id);
      expect((await get(other.id)).parent).toBe(holder.id);
    });

    it('answers 404 for an unknown id', async () => {
      const response = await request('DELETE', '/categories/2389');
      expect(response.statusCode).toBe(404);
      expect(json<ErrorBody>(response).code).toBe('rest-category-not-found');
    });

    it('needs a token: anonymous → 401 (even for an unknown id), viewer → 403; nothing is deleted', async () => {
      const term = await create({ name: unique() });
      const before = await snapshot(t.storage);
      expect((await request('DELETE', `/categories/${term.id}`, undefined, {})).statusCode).toBe(401);
      expect((await request('DELETE', '/categories/23', undefined, {})).statusCode).toBe(401);
      const viewer = await request('DELETE', `/categories/${term.id}`, undefined, VIEWER);
      expect(viewer.statusCode).toBe(403);
      expect(json<ErrorBody>(viewer).code).toBe('rest_forbidden');
      expect(await snapshot(t.storage)).toEqual(before);
    });
  });
});
