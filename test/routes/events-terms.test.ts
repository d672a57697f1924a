/**
 * Categories and tags on event writes (the reference tests EventInsertionCest L1123–L1343,
 * EventUpdateCest L1294–L1508): terms named by id, slug or name, as a list or a CSV string; an unknown
 * name creates the term once the whole write is valid; an unknown id is a 400 naming
 * the parameter (the reference drops it silently). The embedded term has the shape of
 * sample 10, with `count` = published events using it, and the list is ordered by name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, countAll, createEvent, createEventOk, json, makeEventInput, openTestApp, snapshot } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

const BASE = `http://localhost:80${API}`;
const TAXONOMIES = ['categories', 'tags'] as const;
const cases = engines.flatMap((engine) => TAXONOMIES.map((taxonomy) => ({ name: engine.name, engine, taxonomy })));

/** Keys of the embedded terms of sample 10-create-event.json, in order. */
const SAMPLE_10_TERM_KEYS = ['name', 'slug', 'term_group', 'term_taxonomy_id', 'taxonomy', 'description', 'parent', 'count', 'filter', 'id', 'urls'];

type EmbeddedTerm = {
  name: string;
  slug: string;
  term_group: number;
  term_taxonomy_id: number;
  taxonomy: string;
  description: string;
  parent: number;
  count: number;
  filter: string;
  id: number;
  urls: { self: string; collection: string; up?: string };
};
type Term = { id: number; name: string; slug: string; count: number };
type ErrorBody = { code: string; data: { status: number; params: Record<string, string> } };

describe.each(cases)('$name engine: $taxonomy on event writes', ({ engine, taxonomy }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  let counter = 0;
  const unique = (prefix: string) => `${prefix} ${++counter}`;

  async function createTerm(name: string, extra: Record<string, unknown> = {}): Promise<Term> {
    const response = await t.app.inject({ method: 'POST', url: `${API}/${taxonomy}`, headers: EDITOR, payload: { name, ...extra } });
    if (response.statusCode !== 201) throw new Error(`term create failed: ${response.statusCode} ${response.body}`);
    return json<Term>(response);
  }

  /** Creates an event with the given value for this taxonomy; returns its embedded terms. */
  async function termsOfNewEvent(value: unknown, extra: Record<string, unknown> = {}): Promise<EmbeddedTerm[]> {
    const body = await createEventOk(t.app, { [taxonomy]: value, ...extra });
    return body[taxonomy] as EmbeddedTerm[];
  }

  const ids = (terms: Array<{ id: number }>) => terms.map((x) => x.id);
  const termCount = () => t.storage[taxonomy].count({});

  const update = (id: number, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `${API}/events/${id}`, headers: EDITOR, payload });

  it('takes existing terms by id, in that order (L1123)', async () => {
    const first = await createTerm(unique('Alpha'));
    const second = await createTerm(unique('Beta'));
    const terms = await termsOfNewEvent([first.id, second.id]);
    expect(ids(terms)).toEqual([first.id, second.id]);
    expect(terms.map((x) => x.name)).toEqual([first.name, second.name]);
  });

  it('embeds the terms ordered by name, whatever the order sent', async () => {
    const zulu = await createTerm(unique('Zulu'));
    const alpha = await createTerm(unique('alpha'));
    const mike = await createTerm(unique('Mike'));
    expect(ids(await termsOfNewEvent([zulu.id, mike.id, alpha.id]))).toEqual([alpha.id, mike.id, zulu.id]);
  });

  it('takes ids as numeric strings and as a CSV string', async () => {
    const first = await createTerm(unique('Csv one'));
    const second = await createTerm(unique('Csv two'));
    expect(ids(await termsOfNewEvent([String(first.id)]))).toEqual([first.id]);
    expect(ids(await termsOfNewEvent(`${first.id},${second.id}`))).toEqual([first.id, second.id]);
    expect(ids(await termsOfNewEvent(`${first.id} , ${second.id}`))).toEqual([first.id, second.id]);
    expect(ids(await termsOfNewEvent(first.id))).toEqual([first.id]);
  });

  it('takes existing terms by slug and by name in any case, creating nothing', async () => {
    const term = await createTerm('Jazz Nights', { slug: 'jazz-nights-slug' });
    const before = await termCount();
    expect(ids(await termsOfNewEvent(['jazz-nights-slug']))).toEqual([term.id]);
    expect(ids(await termsOfNewEvent('Jazz Nights'))).toEqual([term.id]);
    expect(ids(await termsOfNewEvent(['jAZZ nIGHTS']))).toEqual([term.id]);
    expect(await termCount()).toBe(before);
  });

  it('creates a term for an unknown name, and reuses it afterwards (L1155)', async () => {
    const before = await termCount();
    const [created] = (await termsOfNewEvent(['Brand New Thing'])) as [EmbeddedTerm];
    expect(created).toMatchObject({ name: 'Brand New Thing', slug: 'brand-new-thing', description: '', parent: 0, count: 1 });
    expect(await termCount()).toBe(before + 1);
    // It is a real term of the taxonomy.
    const read = await t.app.inject({ method: 'GET', url: `${API}/${taxonomy}/${created.id}` });
    expect(json<Term>(read)).toMatchObject({ id: created.id, name: 'Brand New Thing', count: 1 });

    // A second event naming it in another case reuses it.
    const [again] = (await termsOfNewEvent('brand new THING')) as [EmbeddedTerm];
    expect(again.id).toBe(created.id);
    expect(again.count).toBe(2);
    expect(await termCount()).toBe(before + 1);
  });

  it('creates several terms from a CSV of new names', async () => {
    const before = await termCount();
    const terms = await termsOfNewEvent('Csv new one,Csv new two');
    expect(terms.map((x) => x.name)).toEqual(['Csv new one', 'Csv new two']);
    expect(await termCount()).toBe(before + 2);
  });

  it('mixes existing ids and new names (L1204)', async () => {
    const existing = await createTerm(unique('Aardvark'));
    const terms = await termsOfNewEvent([existing.id, 'Mixed newcomer']);
    expect(terms).toHaveLength(2);
    expect(terms[0]?.id).toBe(existing.id);
    expect(terms[1]?.name).toBe('Mixed newcomer');
  });

  it('lists a term named several ways once', async () => {
    const term = await createTerm('Repeated', { slug: 'repeated' });
    const before = await termCount();
    expect(ids(await termsOfNewEvent([term.id, 'repeated', 'REPEATED', String(term.id)]))).toEqual([term.id]);
    // Two spellings of one new name create one term.
    const fresh = await termsOfNewEvent(['Twice new', 'twice NEW']);
    expect(fresh).toHaveLength(1);
    expect(await termCount()).toBe(before + 1);
  });

  it.each([[''], [[]]])('takes %j as no terms (L1180)', async (value) => {
    const before = await termCount();
    expect(await termsOfNewEvent(value)).toEqual([]);
    expect(await termCount()).toBe(before);
  });

  it('ignores blank items instead of creating a term without a name', async () => {
    const term = await createTerm(unique('Beside blanks'));
    const before = await termCount();
    expect(await termsOfNewEvent([' '])).toEqual([]);
    expect(ids(await termsOfNewEvent(['  ', term.id, '']))).toEqual([term.id]);
    expect(await termCount()).toBe(before);
  });

  it('trims a new name', async () => {
    const [created] = (await termsOfNewEvent(['  Padded newcomer  '])) as [EmbeddedTerm];
    expect(created).toMatchObject({ name: 'Padded newcomer', slug: 'padded-newcomer' });
  });

  it('counts published events only in the embedded count', async () => {
    const term = await createTerm(unique('Counted'));
    await termsOfNewEvent([term.id]);
    const [inDraft] = (await termsOfNewEvent([term.id], { status: 'draft' })) as [EmbeddedTerm];
    expect(inDraft.count).toBe(1);
    const [inPublished] = (await termsOfNewEvent([term.id])) as [EmbeddedTerm];
    expect(inPublished.count).toBe(2);
  });

  describe('refused writes: all or nothing', () => {
    async function expectRefusedCreate(payload: Record<string, unknown>, params: string[]) {
      const before = await countAll(t.storage);
      const { response, body } = await createEvent(t.app, payload);
      expect(response.statusCode, response.body).toBe(400);
      const error = body as unknown as ErrorBody;
      expect(error.code).toBe('rest_invalid_param');
      expect(Object.keys(error.data.params).sort()).toEqual([...params].sort());
      expect(await countAll(t.storage)).toEqual(before);
    }

    it('refuses an unknown id, naming the parameter; no event, no term is created', async () => {
      await expectRefusedCreate({ [taxonomy]: [2389] }, [taxonomy]);
      await expectRefusedCreate({ [taxonomy]: '2389' }, [taxonomy]);
    });

    it('creates no term from a new name when an id in the same list is unknown', async () => {
      await expectRefusedCreate({ [taxonomy]: ['Never created', 2389] }, [taxonomy]);
      await expectRefusedCreate({ [taxonomy]: [2389, 'Never created either'] }, [taxonomy]);
      const search = await t.app.inject({ method: 'GET', url: `${API}/${taxonomy}?hide_empty=false&search=never` });
      expect(json<{ total: number }>(search).total).toBe(0);
    });

    it('creates no term when another field of the body is refused', async () => {
      const other = taxonomy === 'categories' ? 'tags' : 'categories';
      await expectRefusedCreate({ [taxonomy]: ['Not with a bad sibling'], [other]: [2389] }, [other]);
      await expectRefusedCreate({ [taxonomy]: ['Not with a bad date'], start_date: 'not a date' }, ['start_date']);
      await expectRefusedCreate({ [taxonomy]: ['Not with a bad venue'], venue: 2389 }, ['venue']);
    });

    it.each([[0], ['0']])('refuses %j, which is no term id', async (value) => {
      await expectRefusedCreate({ [taxonomy]: value }, [taxonomy]);
      await expectRefusedCreate({ [taxonomy]: [value] }, [taxonomy]);
    });

    it('refuses the id of a term of the other taxonomy', async () => {
      const other = taxonomy === 'categories' ? 'tags' : 'categories';
      const foreign = json<Term>(await t.app.inject({ method: 'POST', url: `${API}/${other}`, headers: EDITOR, payload: { name: unique('Foreign') } }));
      await expectRefusedCreate({ [taxonomy]: [foreign.id] }, [taxonomy]);
    });

    it('refuses a value that is not a list of ids, slugs or names', async () => {
      const before = await countAll(t.storage);
      const { response, body } = await createEvent(t.app, { [taxonomy]: { id: 1 } });
      expect(response.statusCode).toBe(400);
      expect(Object.keys((body as unknown as ErrorBody).data.params)).toEqual([taxonomy]);
      expect(await countAll(t.storage)).toEqual(before);
    });
  });

  describe('updates (EventUpdateCest L1294–L1508)', () => {
    it('replaces the terms by ids, names and new names, and clears them with ""', async () => {
      const first = await createTerm(unique('Update one'));
      const second = await createTerm(unique('Update two'));
      const event = await createEventOk(t.app, { [taxonomy]: [first.id] });
      const id = event.id as number;

      const replaced = await update(id, { [taxonomy]: [second.id] });
      expect(replaced.statusCode, replaced.body).toBe(200);
      expect(ids(json<Record<string, EmbeddedTerm[]>>(replaced)[taxonomy] ?? [])).toEqual([second.id]);

      const named = json<Record<string, EmbeddedTerm[]>>(await update(id, { [taxonomy]: `${first.name},Update newcomer` }))[taxonomy] ?? [];
      expect(named.map((x) => x.name)).toEqual(['Update newcomer', first.name]);

      // Omitted: unchanged.
      const untouched = json<Record<string, EmbeddedTerm[]>>(await update(id, { title: 'Renamed event' }))[taxonomy] ?? [];
      expect(untouched.map((x) => x.name)).toEqual(['Update newcomer', first.name]);

      const cleared = await update(id, { [taxonomy]: '' });
      expect(json<Record<string, unknown>>(cleared)[taxonomy]).toEqual([]);
      expect((await t.storage.events.findById(id))?.[taxonomy === 'categories' ? 'categoryIds' : 'tagIds']).toEqual([]);
    });

    it('refuses an unknown id and changes nothing, creating no term', async () => {
      const term = await createTerm(unique('Kept'));
      const event = await createEventOk(t.app, { [taxonomy]: [term.id] });
      const before = await snapshot(t.storage);
      const response = await update(event.id as number, { title: 'Not applied', [taxonomy]: ['Update never created', 2389] });
      expect(response.statusCode).toBe(400);
      expect(Object.keys(json<ErrorBody>(response).data.params)).toEqual([taxonomy]);
      expect(await snapshot(t.storage)).toEqual(before);
    });
  });
});

describe.each(engines)('$name engine: embedded terms (sample 10)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('embeds categories and tags in the shape and key order of sample 10', async () => {
    const post = (path: string, payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: `${API}/${path}`, headers: EDITOR, payload }).then((r) => json<Term & { parent?: number }>(r));
    const parent = await post('categories', { name: 'Music' });
    const category = await post('categories', { name: 'Peer Category', description: 'cat desc', slug: 'peer-category', parent: parent.id });
    const tag = await post('tags', { name: 'Peer Tag', description: 'tag desc', slug: 'peer-tag' });

    const response = await t.app.inject({
      method: 'POST',
      url: `${API}/events`,
      headers: EDITOR,
      payload: makeEventInput({ categories: [category.id], tags: [tag.id] }),
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = json<{ categories: EmbeddedTerm[]; tags: EmbeddedTerm[] }>(response);
    const [categoryOut] = body.categories as [EmbeddedTerm];
    const [tagOut] = body.tags as [EmbeddedTerm];
    expect(Object.keys(categoryOut)).toEqual(SAMPLE_10_TERM_KEYS);
    expect(Object.keys(tagOut)).toEqual(SAMPLE_10_TERM_KEYS);
    expect(categoryOut).toEqual({
      name: 'Peer Category',
      slug: 'peer-category',
      term_group: 0,
      term_taxonomy_id: category.id,
      taxonomy: 'tribe_events_cat',
      description: 'cat desc',
      parent: parent.id,
      // The event just created is published and uses it.
      count: 1,
      filter: 'raw',
      id: category.id,
      urls: { self: `${BASE}/categories/${category.id}`, collection: `${BASE}/categories`, up: `${BASE}/categories/${parent.id}` },
    });
    expect(tagOut).toEqual({
      name: 'Peer Tag',
      slug: 'peer-tag',
      term_group: 0,
      term_taxonomy_id: tag.id,
      taxonomy: 'post_tag',
      description: 'tag desc',
      parent: 0,
      count: 1,
      filter: 'raw',
      id: tag.id,
      urls: { self: `${BASE}/tags/${tag.id}`, collection: `${BASE}/tags` },
    });
    // No `url`, no `meta` in the embedded shape (embedded shape).
    expect(categoryOut).not.toHaveProperty('url');
    expect(categoryOut).not.toHaveProperty('meta');

    // The same terms on a single read.
    const read = json<{ categories: EmbeddedTerm[]; tags: EmbeddedTerm[] }>(
      await t.app.inject({ method: 'GET', url: `${API}/events/${json<{ id: number }>(response).id}` }),
    );
    expect(read.categories).toEqual(body.categories);
    expect(read.tags).toEqual(body.tags);
  });

  it('creates categories and tags by name in one write (sample 11)', async () => {
    const before = await countAll(t.storage);
    const body = await createEventOk(t.app, { categories: ['Inline Category'], tags: ['inline-tag'] });
    const [category] = body.categories as [EmbeddedTerm];
    const [tag] = body.tags as [EmbeddedTerm];
    expect(category).toMatchObject({ name: 'Inline Category', slug: 'inline-category', taxonomy: 'tribe_events_cat', description: '', parent: 0, count: 1 });
    expect(tag).toMatchObject({ name: 'inline-tag', slug: 'inline-tag', taxonomy: 'post_tag', description: '', parent: 0, count: 1 });
    const after = await countAll(t.storage);
    expect(after.categories).toBe(before.categories + 1);
    expect(after.tags).toBe(before.tags + 1);
    expect(after.events).toBe(before.events + 1);
  });
});
