/**
 * GET /categories and GET /tags (the reference tests CategoryArchiveCest, TagArchiveCest),
 * on every engine and for both taxonomies. Our deliberate differences, tested as such:
 * - `include`/`exclude` items given by slug or name are resolved to their ids (the reference passes 0);
 * - `parent=0` lists the root categories (the reference refuses it);
 * - links keep every filter with its effective value, not the reference's bare base;
 * - `previous_rest_url` is present for any page > 1, even past the end;
 * - `hide_empty` and `count` consider published events only.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, VIEWER, createEventOk, insertVenue, json } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { sharedTestApp } from '../helpers/shared-app.js';

const { engines } = await routeEnginesUnderTest();

const BASE = `http://localhost:80${API}`;
const TAXONOMIES = ['categories', 'tags'] as const;

const cases = engines.flatMap((engine) => TAXONOMIES.map((taxonomy) => ({ name: engine.name, engine, taxonomy })));

type Term = { id: number; count: number; name: string; slug: string; parent?: number };
type ListBody = Record<string, unknown> & { rest_url: string; total: number; total_pages: number; next_rest_url?: string; previous_rest_url?: string };
type ErrorBody = { code: string; data: { status: number; params?: Record<string, string> } };

describe.each(cases)('$name engine: GET /$taxonomy', ({ engine, taxonomy }) => {
  let t: TestApp;
  // Every test gets an empty store: list totals depend on everything stored.
  const shared = sharedTestApp(engine);
  beforeEach(async () => {
    t = await shared.fresh();
  });
  afterAll(() => shared.close());

  const collection = `${BASE}/${taxonomy}/`;

  async function create(name: string, extra: Record<string, unknown> = {}): Promise<Term> {
    const response = await t.app.inject({ method: 'POST', url: `${API}/${taxonomy}`, headers: EDITOR, payload: { name, ...extra } });
    if (response.statusCode !== 201) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
    return json<Term>(response);
  }

  async function createMany(names: string[]): Promise<Term[]> {
    const terms: Term[] = [];
    for (const name of names) terms.push(await create(name));
    return terms;
  }

  /** GET the list anonymously; `query` is appended as is. */
  const list = (query = '', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `${API}/${taxonomy}${query === '' ? '' : `?${query}`}`, headers });

  async function listOk(query = ''): Promise<{ body: ListBody; items: Term[]; headers: Record<string, unknown> }> {
    const response = await list(query);
    expect(response.statusCode, response.body).toBe(200);
    const body = json<ListBody>(response);
    return { body, items: body[taxonomy] as Term[], headers: response.headers };
  }

  const names = (items: Term[]) => items.map((x) => x.name);
  const ids = (items: Term[]) => items.map((x) => x.id);

  async function expectInvalid(query: string, param: string) {
    const response = await list(query);
    expect(response.statusCode, response.body).toBe(400);
    const body = json<ErrorBody>(response);
    expect(body.code).toBe('rest_invalid_param');
    expect(Object.keys(body.data.params ?? {})).toContain(param);
  }

  /** An event using the given terms of this taxonomy. */
  const useIn = (terms: Term[], extra: Record<string, unknown> = {}) => createEventOk(t.app, { [taxonomy]: terms.map((x) => x.id), ...extra });

  describe('envelope and paging', () => {
    it('answers an empty store with 200, totals 0 and headers 0/0, no next/previous (L13)', async () => {
      const { body, items, headers } = await listOk('hide_empty=false');
      expect(Object.keys(body)).toEqual(['rest_url', 'total', 'total_pages', taxonomy]);
      expect(body).toEqual({ rest_url: `${collection}?page=1&per_page=10&hide_empty=false`, total: 0, total_pages: 0, [taxonomy]: [] });
      expect(items).toEqual([]);
      expect(headers['x-tec-total']).toBe('0');
      expect(headers['x-tec-totalpages']).toBe('0');
      expect(headers.link).toBeUndefined();
    });

    it('lists every term, in the reference envelope order, by name by default (L34)', async () => {
      await createMany(['Echo', 'alpha', 'Delta', 'Bravo', 'charlie']);
      const { body, items, headers } = await listOk('hide_empty=false');
      expect(Object.keys(body)).toEqual(['rest_url', 'total', 'total_pages', taxonomy]);
      expect(body.total).toBe(5);
      expect(body.total_pages).toBe(1);
      expect(names(items)).toEqual(['alpha', 'Bravo', 'charlie', 'Delta', 'Echo']);
      expect(headers['x-tec-total']).toBe('5');
      expect(headers['x-tec-totalpages']).toBe('1');
      // Items are standalone terms (standalone shape).
      const keys = ['id', 'count', 'description', 'name', 'slug', 'taxonomy', ...(taxonomy === 'categories' ? ['parent'] : []), 'meta', 'url', 'urls'];
      for (const item of items) expect(Object.keys(item)).toEqual(keys);
    });

    it('is public, and the same with a token', async () => {
      await createMany(['One', 'Two']);
      const anonymous = await list('hide_empty=false');
      const viewer = await list('hide_empty=false', VIEWER);
      expect(anonymous.statusCode).toBe(200);
      expect(viewer.body).toBe(anonymous.body);
    });

    it('pages with per_page and page: disjoint pages covering every term (L53)', async () => {
      const all = await createMany(['T1', 'T2', 'T3', 'T4', 'T5', 'T6']);
      const first = await listOk('hide_empty=false&per_page=3&page=1');
      const second = await listOk('hide_empty=false&per_page=3&page=2');
      expect(names(first.items)).toEqual(['T1', 'T2', 'T3']);
      expect(names(second.items)).toEqual(['T4', 'T5', 'T6']);
      expect([...ids(first.items), ...ids(second.items)].sort((a, b) => a - b)).toEqual(ids(all).sort((a, b) => a - b));
    });

    it('returns totals, headers and links on each page (L93)', async () => {
      await createMany(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9']);
      const q = 'per_page=3&hide_empty=false';

      const p1 = await listOk(`${q}&page=1`);
      expect(p1.body).toMatchObject({ total: 9, total_pages: 3 });
      expect(Object.keys(p1.body)).toEqual(['rest_url', 'total', 'total_pages', taxonomy, 'next_rest_url']);
      expect(p1.headers['x-tec-total']).toBe('9');
      expect(p1.headers['x-tec-totalpages']).toBe('3');
      expect(p1.body.rest_url).toBe(`${collection}?page=1&${q}`);
      expect(p1.body.next_rest_url).toBe(`${collection}?${q}&page=2`);
      expect(p1.body).not.toHaveProperty('previous_rest_url');
      expect(p1.headers.link).toBe(`<${collection}?${q}&page=2>; rel="next"`);

      const p2 = await listOk(`${q}&page=2`);
      expect(Object.keys(p2.body)).toEqual(['rest_url', 'total', 'total_pages', taxonomy, 'next_rest_url', 'previous_rest_url']);
      expect(p2.body.previous_rest_url).toBe(`${collection}?${q}`);
      expect(p2.body.next_rest_url).toBe(`${collection}?${q}&page=3`);
      expect(p2.headers.link).toBe(`<${collection}?${q}&page=3>; rel="next", <${collection}?${q}>; rel="prev"`);

      const p3 = await listOk(`${q}&page=3`);
      expect(names(p3.items)).toEqual(['T7', 'T8', 'T9']);
      expect(p3.body.previous_rest_url).toBe(`${collection}?${q}&page=2`);
      expect(p3.body).not.toHaveProperty('next_rest_url');
    });

    it('answers a page past the end with 200 and an empty list, still linking to the previous page', async () => {
      await createMany(['T1', 'T2', 'T3', 'T4']);
      const { body, items, headers } = await listOk('per_page=2&page=5&hide_empty=false');
      expect(items).toEqual([]);
      expect(body).toMatchObject({ total: 4, total_pages: 2 });
      expect(body.previous_rest_url).toBe(`${collection}?per_page=2&hide_empty=false&page=4`);
      expect(body).not.toHaveProperty('next_rest_url');
      expect(headers['x-tec-total']).toBe('4');
      // Past the end of an empty result too.
      const empty = await listOk('page=2&hide_empty=false&search=nothing-matches');
      expect(empty.body).toMatchObject({ total: 0, total_pages: 0 });
      expect(empty.items).toEqual([]);
    });

    it('clamps per_page to 50 and echoes the effective value', async () => {
      await createMany(['T1', 'T2']);
      const { body, items } = await listOk('per_page=100&hide_empty=false');
      expect(items).toHaveLength(2);
      expect(body.rest_url).toBe(`${collection}?page=1&per_page=50&hide_empty=false`);
    });

    it('follows the links it gives, keeping every filter', async () => {
      await createMany(['Foo one', 'Foo two', 'Foo three', 'Bar']);
      const first = await listOk('search=foo&per_page=2&hide_empty=false&orderby=id&order=desc');
      expect(first.body.total).toBe(3);
      expect(first.body.rest_url).toBe(`${collection}?page=1&per_page=2&search=foo&order=desc&orderby=id&hide_empty=false`);
      const next = new URL(first.body.next_rest_url as string);
      const second = await listOk(next.search.slice(1));
      expect(names(second.items)).toEqual(['Foo one']);
      expect(names(first.items)).toEqual(['Foo three', 'Foo two']);
    });

    it.each([
      ['per_page', 'per_page=0'],
      ['per_page', 'per_page=-1'],
      ['per_page', 'per_page=foo'],
      ['per_page', 'per_page=1.5'],
      ['page', 'page=0'],
      ['page', 'page=foo'],
    ])('refuses a bad %s (%s)', async (param, query) => {
      await expectInvalid(query, param);
    });
  });

  describe('hide_empty', () => {
    it('hides terms no published event uses by default; false shows them (counts: published only)', async () => {
      const [used, draftOnly, unused] = (await createMany(['Used', 'Draft only', 'Unused'])) as [Term, Term, Term];
      await useIn([used]);
      await useIn([used, draftOnly], { status: 'draft' });

      for (const query of ['', 'hide_empty=true', 'hide_empty=1', 'hide_empty=TRUE']) {
        const { body, items } = await listOk(query);
        expect(names(items), query).toEqual(['Used']);
        expect(body.total).toBe(1);
      }
      for (const query of ['hide_empty=false', 'hide_empty=0', 'hide_empty=False']) {
        const { items } = await listOk(query);
        expect(names(items), query).toEqual(['Draft only', 'Unused', 'Used']);
        expect(items.map((x) => x.count)).toEqual([0, 0, 1]);
      }
      expect(unused.count).toBe(0);
    });

    it('refuses a value that is not a boolean', async () => {
      await expectInvalid('hide_empty=maybe', 'hide_empty');
    });
  });

  describe('search', () => {
    it('matches a case-insensitive substring of the name or the slug (L150)', async () => {
      await create('Foo');
      await create('Bar');
      await create('Baz');
      await create('One', { slug: 'foo-bar' });
      const total = async (search: string) => (await listOk(`hide_empty=false&search=${search}`)).body.total;
      expect(await total('foo')).toBe(2);
      expect(await total('bar')).toBe(2);
      expect(await total('FOO')).toBe(2);
      expect(await total('ba')).toBe(3);
      expect(names((await listOk('hide_empty=false&search=foo')).items)).toEqual(['Foo', 'One']);
      const none = await listOk('hide_empty=false&search=zoot');
      expect(none.body.total).toBe(0);
      expect(none.items).toEqual([]);
    });

    it('refuses an empty search', async () => {
      await expectInvalid('search=', 'search');
    });
  });

  describe('exclude and include', () => {
    it('excludes by id, list, CSV, slug and name (L195)', async () => {
      const [a, b, c] = (await createMany(['Aa', 'Bb', 'Cc'])) as [Term, Term, Term];
      const namesFor = async (query: string) => names((await listOk(`hide_empty=false&${query}`)).items);
      expect(await namesFor(`exclude=${a.id}`)).toEqual(['Bb', 'Cc']);
      expect(await namesFor(`exclude[]=${a.id}&exclude[]=${b.id}`)).toEqual(['Cc']);
      expect(await namesFor(`exclude=${a.id},${b.id}`)).toEqual(['Cc']);
      expect(await namesFor(`exclude=${a.id}, ${b.id}`)).toEqual(['Cc']);
      expect(await namesFor(`exclude=${a.id}&exclude=${c.id}`)).toEqual(['Bb']);
      const all = await listOk(`hide_empty=false&exclude=${a.id},${b.id},${c.id}`);
      expect(all.body.total).toBe(0);
      // Slugs and names are resolved to their ids (our choice; the reference excludes nothing).
      expect(await namesFor(`exclude=${b.slug}`)).toEqual(['Aa', 'Cc']);
      expect(await namesFor('exclude=cC')).toEqual(['Aa', 'Bb']);
    });

    it('includes by id, list, CSV, slug and name (L248)', async () => {
      const [a, b, c] = (await createMany(['Aa', 'Bb', 'Cc'])) as [Term, Term, Term];
      const namesFor = async (query: string) => names((await listOk(`hide_empty=false&${query}`)).items);
      expect(await namesFor(`include=${a.id}`)).toEqual(['Aa']);
      expect(await namesFor(`include=${c.id},${a.id},${b.id}`)).toEqual(['Aa', 'Bb', 'Cc']);
      expect(await namesFor(`include[0]=${c.id}&include[1]=${b.id}`)).toEqual(['Bb', 'Cc']);
      expect(await namesFor(`include=${b.slug}`)).toEqual(['Bb']);
      expect(await namesFor(`include=${a.id},Cc`)).toEqual(['Aa', 'Cc']);
      // With exclude too: both apply.
      expect(await namesFor(`include=${a.id},${b.id}&exclude=${b.id}`)).toEqual(['Aa']);
      // include still respects hide_empty's default.
      expect((await listOk(`include=${a.id}`)).items).toEqual([]);
    });

    it('refuses unknown items, naming the parameter', async () => {
      const [a] = (await createMany(['Aa'])) as [Term];
      await expectInvalid('exclude=2389', 'exclude');
      await expectInvalid(`exclude=${a.id},2389`, 'exclude');
      await expectInvalid('exclude=no-such-term', 'exclude');
      await expectInvalid('include=2389', 'include');
      await expectInvalid(`include[]=${a.id}&include[]=2390`, 'include');
      await expectInvalid('include=no-such-term', 'include');
    });

    it('refuses an empty list (the reference requires at least one term)', async () => {
      await createMany(['Aa']);
      await expectInvalid('include=', 'include');
      await expectInvalid('exclude=', 'exclude');
      await expectInvalid('include=,', 'include');
    });

    it('refuses the id of a term of the other taxonomy', async () => {
      const other = taxonomy === 'categories' ? 'tags' : 'categories';
      const foreign = json<Term>(await t.app.inject({ method: 'POST', url: `${API}/${other}`, headers: EDITOR, payload: { name: 'Foreign' } }));
      await expectInvalid(`include=${foreign.id}`, 'include');
      await expectInvalid(`exclude=${foreign.id}`, 'exclude');
    });
  });

  describe('order and orderby', () => {
    it('orders by id and by name in both directions (L292)', async () => {
      const [b, A, C] = (await createMany(['b', 'A', 'C'])) as [Term, Term, Term];
      const idsFor = async (query: string) => ids((await listOk(`hide_empty=false&${query}`)).items);
      expect(await idsFor('order=desc&orderby=id')).toEqual([C.id, A.id, b.id]);
      expect(await idsFor('order=asc&orderby=id')).toEqual([b.id, A.id, C.id]);
      expect(await idsFor('order=asc&orderby=name')).toEqual([A.id, b.id, C.id]);
      expect(await idsFor('order=desc&orderby=name')).toEqual([C.id, b.id, A.id]);
      expect(await idsFor('orderby=term_id&order=DESC')).toEqual([C.id, A.id, b.id]);
      // Defaults: name, ascending.
      expect(await idsFor('')).toEqual([A.id, b.id, C.id]);
      expect(await idsFor('orderby=id')).toEqual([b.id, A.id, C.id]);
      // An unknown orderby falls back to name; any order but asc is descending.
      expect(await idsFor('orderby=foo')).toEqual([A.id, b.id, C.id]);
      expect(await idsFor('orderby=id&order=foo')).toEqual([C.id, A.id, b.id]);
    });

    it('orders by count of published events, and by slug', async () => {
      const [b, A, C] = (await createMany(['b', 'A', 'C'])) as [Term, Term, Term];
      await useIn([b, C]);
      await useIn([b]);
      await useIn([A, b, C], { status: 'draft' });
      const idsFor = async (query: string) => ids((await listOk(`hide_empty=false&${query}`)).items);
      expect(await idsFor('orderby=count')).toEqual([A.id, C.id, b.id]);
      expect(await idsFor('orderby=count&order=desc')).toEqual([b.id, C.id, A.id]);
      expect(await idsFor('orderby=slug&order=desc')).toEqual([C.id, b.id, A.id]);
    });

    it.each([
      ['order', 'order='],
      ['orderby', 'orderby='],
    ])('refuses an empty %s (L345)', async (param, query) => {
      await expectInvalid(query, param);
    });
  });

  describe('post and event', () => {
    it('lists the terms of an event, by post or by its alias event (L408, L433)', async () => {
      const [one, two] = (await createMany(['One', 'Two', 'Three'])) as [Term, Term, Term];
      const event = await useIn([one, two]);
      for (const param of ['post', 'event']) {
        const { body, items } = await listOk(`hide_empty=false&${param}=${event.id as number}`);
        expect(body.total).toBe(2);
        expect(names(items)).toEqual(['One', 'Two']);
      }
    });

    it('lets event win over post (L458)', async () => {
      const [one, two, three] = (await createMany(['One', 'Two', 'Three'])) as [Term, Term, Term];
      const first = await useIn([one, two]);
      const second = await useIn([three]);
      const { body, items } = await listOk(`hide_empty=false&post=${first.id as number}&event=${second.id as number}`);
      expect(body.total).toBe(1);
      expect(names(items)).toEqual(['Three']);
    });

    it('lists nothing for an event without terms', async () => {
      await createMany(['One']);
      const event = await createEventOk(t.app);
      expect((await listOk(`hide_empty=false&post=${event.id as number}`)).body.total).toBe(0);
    });

    it.each(['post', 'event'])('refuses %s that is empty, unknown, not a number or not an event (L491)', async (param) => {
      const venue = await insertVenue(t.storage);
      for (const value of ['', '23', 'foo', String(venue._id)]) await expectInvalid(`${param}=${value}`, param);
    });
  });

  describe('slug', () => {
    it('matches the slug exactly (L508)', async () => {
      await createMany(['a', 'b', 'c']);
      await create('a two', { slug: 'a-2' });
      expect(names((await listOk('hide_empty=false&slug=a')).items)).toEqual(['a']);
      expect(names((await listOk('hide_empty=false&slug=c')).items)).toEqual(['c']);
      expect(names((await listOk('hide_empty=false&slug=a-2')).items)).toEqual(['a two']);
      const none = await listOk('hide_empty=false&slug=foo');
      expect(none.body.total).toBe(0);
    });

    it('refuses an empty slug (L554)', async () => {
      await expectInvalid('slug=', 'slug');
    });
  });

  if (taxonomy === 'categories') {
    describe('parent', () => {
      it('lists the direct children of a category, given by id, slug or name (L366)', async () => {
        const b = await create('b');
        const first = await create('First child', { parent: b.id });
        await create('Second child', { parent: b.id });
        await create('Grandchild', { parent: first.id });
        await create('Elsewhere');
        for (const parent of [String(b.id), 'b']) {
          const { body, items } = await listOk(`hide_empty=false&parent=${parent}`);
          expect(body.total).toBe(2);
          expect(names(items)).toEqual(['First child', 'Second child']);
        }
        expect(names((await listOk(`hide_empty=false&parent=${first.id}`)).items)).toEqual(['Grandchild']);
      });

      it('lists the roots with parent=0 (our choice)', async () => {
        const b = await create('b');
        await create('Child', { parent: b.id });
        await create('a');
        expect(names((await listOk('hide_empty=false&parent=0')).items)).toEqual(['a', 'b']);
      });

      it.each(['2389', '', 'foo', '-1'])('refuses parent=%s (L392)', async (value) => {
        await create('b');
        await expectInvalid(`parent=${value}`, 'parent');
      });
    });
  } else {
    describe('parent', () => {
      it('is refused on tags, which have no parents', async () => {
        const tag = await create('b');
        await expectInvalid(`parent=${tag.id}`, 'parent');
        await expectInvalid('parent=0', 'parent');
      });
    });
  }
});
