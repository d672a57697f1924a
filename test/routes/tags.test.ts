/**
 * Tags: create, read, update and delete by id (TagInsertionCest,
 * TagUpdateCest, TagDeletionCest, SingleTagCest). Tags are flat: no `parent` member, and `parent` on a
 * write is refused with `rest_taxonomy_not_hierarchical`. Our differences as for categories: unknown
 * id → 404 `rest-tag-not-found`, slug clash on update → 409, anonymous writes → 401 first.
 * Lists are in term-lists.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, VIEWER, countAll, createEventOk, json, openTestApp, snapshot } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

const BASE = `http://localhost:80${API}`;
/** Keys of samples 09-create-tag.json / 38-tag-by-id.json, in order (without `_links`). */
const TAG_KEYS = ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'meta', 'url', 'urls'];

type Tag = {
  id: number;
  count: number;
  description: string;
  name: string;
  slug: string;
  taxonomy: string;
  meta: unknown[];
  url: string;
  urls: { self: string; collection: string; up?: string };
};
type ErrorBody = { code: string; message: string; data: { status: number; params?: Record<string, string> | string[]; term_id?: number } };

describe.each(engines)('$name engine: tags', (engine) => {
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
  const unique = (prefix = 'Tag') => `${prefix} ${++counter}`;

  async function create(payload: Record<string, unknown>): Promise<Tag> {
    const response = await request('POST', '/tags', payload);
    if (response.statusCode !== 201) throw new Error(`tag create failed: ${response.statusCode} ${response.body}`);
    return json<Tag>(response);
  }

  async function get(id: number): Promise<Tag> {
    const response = await request('GET', `/tags/${id}`, undefined, {});
    expect(response.statusCode, response.body).toBe(200);
    return json<Tag>(response);
  }

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

  describe('POST /tags', () => {
    it('creates a tag like sample 09: 201, the reference key order, no parent, no `up`', async () => {
      const response = await request('POST', '/tags', { name: 'Peer Tag', description: 'tag desc', slug: 'peer-tag' });
      expect(response.statusCode, response.body).toBe(201);
      const body = json<Tag>(response);
      expect(Object.keys(body)).toEqual(TAG_KEYS);
      expect(body).toEqual({
        id: expect.any(Number),
        count: 0,
        description: 'tag desc',
        name: 'Peer Tag',
        slug: 'peer-tag',
        taxonomy: 'post_tag',
        meta: [],
        url: 'http://localhost:80/tag/peer-tag/',
        urls: { self: `${BASE}/tags/${body.id}`, collection: `${BASE}/tags` },
      });
      expect(body).not.toHaveProperty('_links');
      expect(await get(body.id)).toEqual(body);
    });

    it('takes its id from the sequence shared with categories', async () => {
      const category = json<{ id: number }>(await request('POST', '/categories', { name: unique('Category') }));
      const tag = await create({ name: unique() });
      expect(tag.id).toBeGreaterThan(category.id);
      expect((await request('GET', `/categories/${tag.id}`, undefined, {})).statusCode).toBe(404);
    });

    it('derives and de-duplicates slugs like categories, independently of them', async () => {
      await request('POST', '/categories', { name: 'Outdoor category', slug: 'outdoor' });
      const first = await create({ name: 'Outdoor' });
      const second = await create({ name: 'Outdoors', slug: 'outdoor' });
      const third = await create({ name: 'Out door', slug: 'Outdoor' });
      expect([first.slug, second.slug, third.slug]).toEqual(['outdoor', 'outdoor-2', 'outdoor-3']);
    });

    it('requires name: 400 rest_missing_callback_param', async () => {
      await expectRefused('POST', '/tags', { slug: 'no-name' }, 'rest_missing_callback_param', 'name');
    });

    it.each([
      ['name', { name: '' }],
      ['name', { name: ' ' }],
      ['description', { name: 'Valid', description: '' }],
      ['slug', { name: 'Valid', slug: '' }],
      ['colour', { name: 'Valid', colour: 'red' }],
    ])('refuses a bad %s (TagInsertionCest): %j', async (param, payload) => {
      await expectRefused('POST', '/tags', payload, 'rest_invalid_param', param);
    });

    it.each([[1], [0], ['0'], [''], ['foo']])('refuses parent %j: 400 rest_taxonomy_not_hierarchical', async (parent) => {
      const body = await expectRefused('POST', '/tags', { name: unique(), parent }, 'rest_taxonomy_not_hierarchical');
      expect(body.message).toBe('Cannot set parent term, taxonomy is not hierarchical.');
    });

    it('refuses a duplicate name in any case: 400 term_exists with the existing term id', async () => {
      const existing = await create({ name: 'Family friendly' });
      for (const name of ['Family friendly', 'FAMILY FRIENDLY', ' family friendly']) {
        const body = await expectRefused('POST', '/tags', { name }, 'term_exists');
        expect(body.message).toBe('A term with the name provided already exists in this taxonomy.');
        expect(body.data).toMatchObject({ status: 400, term_id: existing.id });
      }
    });

    it('allows a tag with the name of a category', async () => {
      const category = json<{ id: number; name: string }>(await request('POST', '/categories', { name: 'Shared name' }));
      const tag = await create({ name: 'Shared name' });
      expect(tag.id).not.toBe(category.id);
    });

    it('needs a token: anonymous → 401, viewer → 403; nothing is created', async () => {
      const before = await countAll(t.storage);
      const anonymous = await request('POST', '/tags', { name: unique() }, {});
      expect(anonymous.statusCode).toBe(401);
      expect(json<ErrorBody>(anonymous).code).toBe('rest_forbidden');
      const viewer = await request('POST', '/tags', { name: unique() }, VIEWER);
      expect(viewer.statusCode).toBe(403);
      expect(json<ErrorBody>(viewer).code).toBe('rest_forbidden');
      expect(await countAll(t.storage)).toEqual(before);
    });
  });

  describe('GET /tags/{id}', () => {
    it('reads a tag like sample 38, counting published events only (SingleTagCest)', async () => {
      const tag = await create({ name: 'Counted tag', description: 'Described', slug: 'counted-tag' });
      await createEventOk(t.app, { title: 'One', tags: [tag.id] });
      await createEventOk(t.app, { title: 'Two', tags: [tag.id] });
      await createEventOk(t.app, { title: 'Draft', status: 'draft', tags: [tag.id] });
      await createEventOk(t.app, { title: 'Pending', status: 'pending', tags: [tag.id] });
      const body = await get(tag.id);
      expect(Object.keys(body)).toEqual(TAG_KEYS);
      expect(body).toEqual({
        id: tag.id,
        count: 2,
        description: 'Described',
        name: 'Counted tag',
        slug: 'counted-tag',
        taxonomy: 'post_tag',
        meta: [],
        url: 'http://localhost:80/tag/counted-tag/',
        urls: { self: `${BASE}/tags/${tag.id}`, collection: `${BASE}/tags` },
      });
    });

    it('answers 404 rest-tag-not-found for an unknown id and for the id of a category', async () => {
      const category = json<{ id: number }>(await request('POST', '/categories', { name: unique('Category') }));
      for (const id of [2389, category.id]) {
        const response = await request('GET', `/tags/${id}`, undefined, {});
        expect(response.statusCode).toBe(404);
        expect(json<ErrorBody>(response)).toEqual({ code: 'rest-tag-not-found', message: `Tag with ID ${id} does not exist.`, data: { status: 404 } });
      }
    });

    it.each(['foo', 'foo%20bar'])('answers 404 rest_no_route for /tags/%s', async (id) => {
      const response = await request('GET', `/tags/${id}`, undefined, {});
      expect(response.statusCode).toBe(404);
      expect(json<ErrorBody>(response).code).toBe('rest_no_route');
    });
  });

  describe('POST|PUT|PATCH /tags/{id}', () => {
    it('updates every field and answers 200 with the new values (TagUpdateCest L14)', async () => {
      const tag = await create({ name: unique(), description: 'Old' });
      const response = await request('POST', `/tags/${tag.id}`, { name: 'Renamed tag', description: 'New', slug: 'renamed-tag' });
      expect(response.statusCode, response.body).toBe(200);
      const body = json<Tag>(response);
      expect(Object.keys(body)).toEqual(TAG_KEYS);
      expect(body).toEqual({
        ...tag,
        name: 'Renamed tag',
        description: 'New',
        slug: 'renamed-tag',
        url: 'http://localhost:80/tag/renamed-tag/',
      });
      expect(await get(tag.id)).toEqual(body);
    });

    it.each(['PUT', 'PATCH'] as const)('%s is partial', async (method) => {
      const tag = await create({ name: unique(), description: 'Keep' });
      const body = json<Tag>(await request(method, `/tags/${tag.id}`, { slug: `${tag.slug}-moved` }));
      expect(body).toEqual({ ...tag, slug: `${tag.slug}-moved`, url: `http://localhost:80/tag/${tag.slug}-moved/` });
    });

    it.each([
      ['name', { name: '' }],
      ['description', { description: '' }],
      ['slug', { slug: '' }],
      ['colour', { colour: 'red' }],
    ])('refuses a bad %s and changes nothing: %j', async (param, payload) => {
      const tag = await create({ name: unique() });
      await expectRefused('PATCH', `/tags/${tag.id}`, payload, 'rest_invalid_param', param);
    });

    it.each([[0], [1], ['']])('refuses parent %j on an update: 400 rest_taxonomy_not_hierarchical', async (parent) => {
      const tag = await create({ name: unique() });
      await expectRefused('POST', `/tags/${tag.id}`, { parent, name: 'Not applied' }, 'rest_taxonomy_not_hierarchical');
    });

    it('refuses a slug another tag owns: 409 duplicate_term_slug; a category owning it is no clash', async () => {
      await create({ name: unique(), slug: 'taken-tag-slug' });
      await request('POST', '/categories', { name: unique('Category'), slug: 'category-only-slug' });
      const tag = await create({ name: unique() });
      const before = await snapshot(t.storage);
      const response = await request('PATCH', `/tags/${tag.id}`, { slug: 'taken-tag-slug' });
      expect(response.statusCode).toBe(409);
      expect(json<ErrorBody>(response)).toMatchObject({ code: 'duplicate_term_slug', data: { status: 409 } });
      expect(await snapshot(t.storage)).toEqual(before);
      expect(json<Tag>(await request('PATCH', `/tags/${tag.id}`, { slug: 'category-only-slug' })).slug).toBe('category-only-slug');
    });

    it('refuses the name of another tag: 400 term_exists', async () => {
      const other = await create({ name: 'Taken tag name' });
      const tag = await create({ name: unique() });
      const body = await expectRefused('PATCH', `/tags/${tag.id}`, { name: 'taken TAG name' }, 'term_exists');
      expect(body.data.term_id).toBe(other.id);
    });

    it('answers 404 rest-tag-not-found for an unknown id', async () => {
      const response = await request('PUT', '/tags/2389', { name: 'Nobody' });
      expect(response.statusCode).toBe(404);
      expect(json<ErrorBody>(response).code).toBe('rest-tag-not-found');
    });

    it('needs a token: anonymous → 401, viewer → 403', async () => {
      const tag = await create({ name: unique() });
      const before = await snapshot(t.storage);
      for (const method of ['POST', 'PUT', 'PATCH'] as const) {
        expect((await request(method, `/tags/${tag.id}`, { name: 'Hijacked' }, {})).statusCode).toBe(401);
        expect((await request(method, `/tags/${tag.id}`, { name: 'Hijacked' }, VIEWER)).statusCode).toBe(403);
      }
      expect(await snapshot(t.storage)).toEqual(before);
    });
  });

  describe('DELETE /tags/{id}', () => {
    it('deletes for good and answers 200 with the tag as it was, old count included (TagDeletionCest L14)', async () => {
      const tag = await create({ name: 'Doomed tag', description: 'Going', slug: 'doomed-tag' });
      const kept = await create({ name: unique('Kept') });
      const events = [];
      for (let i = 0; i < 3; i++) events.push(await createEventOk(t.app, { title: `Tagged ${i}`, tags: [tag.id, kept.id] }));

      const response = await request('DELETE', `/tags/${tag.id}`);
      expect(response.statusCode, response.body).toBe(200);
      const body = json<Tag>(response);
      expect(Object.keys(body)).toEqual(TAG_KEYS);
      expect(body).toEqual({ ...tag, count: 3 });

      // Gone from every event; the other tag stays.
      for (const event of events) {
        const read = json<{ tags: Array<{ id: number }> }>(await request('GET', `/events/${event.id as number}`));
        expect(read.tags.map((x) => x.id)).toEqual([kept.id]);
      }
      expect((await get(kept.id)).count).toBe(3);
      expect((await request('GET', `/tags/${tag.id}`, undefined, {})).statusCode).toBe(404);
      const again = await request('DELETE', `/tags/${tag.id}`);
      expect(again.statusCode).toBe(404);
      expect(json<ErrorBody>(again).code).toBe('rest-tag-not-found');
    });

    it('needs a token: anonymous → 401, viewer → 403', async () => {
      const tag = await create({ name: unique() });
      expect((await request('DELETE', `/tags/${tag.id}`, undefined, {})).statusCode).toBe(401);
      expect((await request('DELETE', `/tags/${tag.id}`, undefined, VIEWER)).statusCode).toBe(403);
      expect((await get(tag.id)).id).toBe(tag.id);
    });
  });
});
