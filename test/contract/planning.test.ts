/**
 * Storage contract at a size where index access matters: a few thousand events, the list query
 * shapes the services build (status, hidden, date windows, multikey `$in`, text search, include),
 * every sort the event list offers, deep pages, and the same queries again right after writes.
 * Every answer is compared with one computed here from the documents with plain predicates, so
 * ordered index walks, cached clause results and derived bounds must agree with a naive matcher —
 * on every engine, and meaningfully with a single one.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { searchWords, textSearchOf } from '../../src/lib/text.js';
import { type EventDoc, type Filter, type PostStatus, type Sort, type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc } from '../helpers/factories.js';
import { random } from '../helpers/random.js';

const { engines } = await enginesUnderTest();
const engineCases = engines.map((engine) => [engine.name, engine] as const);

const NOW = new Date('2026-06-15T12:00:00.000Z');
const DAY = 86_400_000;
const HOUR = 3_600_000;
const WORDS = ['jazz', 'opera', 'cinema', 'market', 'poetry', 'garden', 'robot', 'choir'];

/** Events over two years around NOW; many share a start instant (ties broken by _id). */
function fixture(count: number, seed = 3): EventDoc[] {
  const r = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
  const docs: EventDoc[] = [];
  for (let i = 0; i < count; i++) {
    const id = 10_000 + ((i * 7919) % count); // ids not in insertion order
    const start = NOW.getTime() + Math.floor((r() - 0.4) * 700) * DAY + Math.floor(r() * 4) * 6 * HOUR;
    const hours = r() < 0.05 ? 24 * (1 + Math.floor(r() * 5)) : 1 + Math.floor(r() * 4);
    const statusRoll = r();
    const status: PostStatus = statusRoll < 0.85 ? 'publish' : statusRoll < 0.9 ? 'future' : statusRoll < 0.95 ? 'draft' : 'private';
    const words = [pick(WORDS), pick(WORDS)];
    const title = `${words[0]} and ${words[1]} evening`;
    const categories = new Set<number>();
    for (let k = Math.floor(r() * 3); k > 0; k--) categories.add(1 + Math.floor(r() * 8));
    const tags = new Set<number>();
    for (let k = Math.floor(r() * 3); k > 0; k--) tags.add(20 + Math.floor(r() * 5));
    docs.push(
      makeEventDoc({
        _id: id,
        slug: `planned-${id}`,
        status,
        title,
        description: '',
        excerpt: '',
        startUtc: new Date(start),
        endUtc: new Date(start + hours * HOUR),
        dateUtc: new Date(NOW.getTime() + Math.floor((r() - 0.5) * 60) * DAY),
        modifiedUtc: new Date(NOW.getTime() - Math.floor(r() * 100) * DAY),
        hideFromListings: r() < 0.05,
        featured: r() < 0.2,
        ticketed: r() < 0.3,
        venueId: r() < 0.15 ? null : 500 + Math.floor(r() * 40),
        organizerIds: r() < 0.5 ? [] : [600 + Math.floor(r() * 10)],
        categoryIds: [...categories],
        tagIds: [...tags],
      }),
    );
  }
  return docs;
}

// ---------------------------------------------------------------------------------------------
// A plain matcher for the filters of this file: top-level fields, scalar values, no nulls.
// ---------------------------------------------------------------------------------------------

type Plain = string | number | boolean | Date;
const same = (a: unknown, b: Plain): boolean => (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : typeof a === typeof b && a === b);
const compare = (a: unknown, b: Plain): number | null => {
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return null;
};

function fieldMatches(value: unknown, condition: unknown): boolean {
  const values = Array.isArray(value) ? value : [value];
  if (condition === null || typeof condition !== 'object' || condition instanceof Date) {
    return values.some((v) => same(v, condition as Plain));
  }
  return Object.entries(condition).every(([op, operand]) => {
    switch (op) {
      case '$in':
        return (operand as Plain[]).some((o) => values.some((v) => same(v, o)));
      case '$ne':
        return !values.some((v) => same(v, operand as Plain));
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        return values.some((v) => {
          const c = compare(v, operand as Plain);
          if (c === null) return false;
          return op === '$gt' ? c > 0 : op === '$gte' ? c >= 0 : op === '$lt' ? c < 0 : c <= 0;
        });
      case '$all':
        return (operand as Plain[]).every((o) => values.some((v) => same(v, o)));
      default:
        throw new Error(`The test matcher has no ${op}`);
    }
  });
}

function matches(doc: EventDoc, filter: Filter): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and') return (condition as Filter[]).every((f) => matches(doc, f));
    if (key === '$or') return (condition as Filter[]).some((f) => matches(doc, f));
    if (key === '$text') {
      const terms = searchWords((condition as { $search: string }).$search);
      const held = searchWords(`${doc.title} ${doc.description} ${doc.excerpt}`);
      return terms.some((t) => held.includes(t));
    }
    return fieldMatches((doc as unknown as Record<string, unknown>)[key], condition);
  });
}

function expectedPage(docs: readonly EventDoc[], filter: Filter, sort: Sort, skip: number, limit: number) {
  const key = (d: EventDoc, field: string): number => {
    const value = (d as unknown as Record<string, unknown>)[field];
    return value instanceof Date ? value.getTime() : (value as number);
  };
  const matching = docs
    .filter((d) => matches(d, filter))
    .sort((a, b) => {
      for (const [field, direction] of sort) {
        const c = key(a, field) - key(b, field);
        if (c !== 0) return c * direction;
      }
      return 0;
    });
  return { ids: matching.slice(skip, limit === 0 ? undefined : skip + limit).map((d) => d._id), total: matching.length };
}

// ---------------------------------------------------------------------------------------------
// The query shapes of the event list
// ---------------------------------------------------------------------------------------------

const anonymous = (now: Date): Filter => ({ $or: [{ status: 'publish' }, { status: 'future', dateUtc: { $lte: now } }] });
const SORTS: Sort[] = [
  [
    ['startUtc', 1],
    ['_id', 1],
  ],
  [
    ['startUtc', -1],
    ['_id', -1],
  ],
  [
    ['endUtc', 1],
    ['_id', 1],
  ],
  [
    ['endUtc', -1],
    ['_id', -1],
  ],
  [
    ['dateUtc', 1],
    ['_id', 1],
  ],
];

function randomFilter(r: () => number, ids: readonly number[], now: Date): Filter {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
  const at = (days: number) => new Date(NOW.getTime() + Math.floor(days) * DAY);
  const clauses: Filter[] = [r() < 0.7 ? anonymous(now) : { status: { $in: ['publish', 'future', 'draft', 'private'] } }];
  if (r() < 0.8) clauses.push({ hideFromListings: false });
  if (r() < 0.7) clauses.push({ startUtc: { [pick(['$gte', '$gt'])]: at((r() - 0.5) * 400) } });
  if (r() < 0.6) clauses.push({ endUtc: { [pick(['$lte', '$lt'])]: at(r() * 500) } });
  const optional: Array<() => Filter> = [
    () => ({ categoryIds: { $in: [1 + Math.floor(r() * 8), 1 + Math.floor(r() * 8)] } }),
    () => ({ tagIds: { $in: [20 + Math.floor(r() * 5)] } }),
    () => ({ venueId: { $in: [500 + Math.floor(r() * 40), 500 + Math.floor(r() * 40)] } }),
    () => ({ organizerIds: { $in: [600 + Math.floor(r() * 10)] } }),
    () => ({ featured: r() < 0.5 }),
    () => ({ ticketed: r() < 0.5 }),
    () => ({ _id: { $in: Array.from({ length: 5 }, () => pick(ids)) } }),
    // The unique slug index answers equality by key look-up in the embedded engine.
    () => ({ slug: { $in: [...Array.from({ length: 4 }, () => `planned-${pick(ids)}`), 'planned-none'] } }),
    () => ({ startUtc: { $lt: at(r() * 300) } }),
  ];
  for (const make of optional) if (r() < 0.2) clauses.push(make());
  return { $and: clauses };
}

describe.each(engineCases)('%s engine: planned list queries', (_name, engine) => {
  const docs = fixture(3000);
  let storage: Storage;
  beforeAll(async () => {
    storage = await engine.open();
    for (const doc of docs) await storage.events.insertOne(doc);
  }, 120_000);
  afterAll(async () => {
    await storage.close();
  });

  async function check(filter: Filter, sort: Sort, skip: number, limit: number): Promise<void> {
    const want = expectedPage(docs, filter, sort, skip, limit);
    const page = await storage.events.findPage({ filter, sort, skip, limit });
    expect({ ids: page.items.map((d) => d._id), total: page.total }).toEqual(want);
  }

  it('answers random list filters like a plain matcher, three times each (cold, then cached)', async () => {
    const r = random(11);
    const ids = docs.map((d) => d._id);
    for (let i = 0; i < 60; i++) {
      const filter = randomFilter(r, ids, NOW);
      const sort = SORTS[Math.floor(r() * SORTS.length)]!;
      const skip = r() < 0.8 ? Math.floor(r() * 30) : Math.floor(r() * 2000);
      for (let round = 0; round < 3; round++) await check(filter, sort, skip, 1 + Math.floor(r() * 50));
    }
  });

  it('walks the start index in both directions with ties broken by _id, down to deep pages', async () => {
    const filter: Filter = { $and: [anonymous(NOW), { hideFromListings: false }, { startUtc: { $gte: new Date(NOW.getTime() - DAY) } }] };
    for (const skip of [0, 10, 490, 1500, 2500]) {
      await check(
        filter,
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
        skip,
        10,
      );
      await check(
        filter,
        [
          ['startUtc', -1],
          ['_id', -1],
        ],
        skip,
        10,
      );
    }
    // No limit: every match, in order.
    await check(
      filter,
      [
        ['startUtc', 1],
        ['_id', 1],
      ],
      0,
      0,
    );
  });

  it('serves multikey $in on categories, tags and organizers', async () => {
    for (let round = 0; round < 3; round++) {
      await check(
        { categoryIds: { $in: [2, 5] } },
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
        0,
        20,
      );
      await check(
        { $and: [anonymous(NOW), { categoryIds: { $in: [1, 2, 3] } }, { tagIds: { $in: [21] } }] },
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
        5,
        20,
      );
      await check(
        { organizerIds: { $in: [601, 605] }, featured: true },
        [
          ['endUtc', -1],
          ['_id', -1],
        ],
        0,
        50,
      );
      expect(await storage.events.count({ categoryIds: 3 })).toBe(docs.filter((d) => d.categoryIds.includes(3)).length);
    }
  });

  it('compares Dates at and around exact bounds, and never across types', async () => {
    const bound = docs[17]!.startUtc;
    for (const op of ['$gt', '$gte', '$lt', '$lte'] as const) {
      await check(
        { startUtc: { [op]: bound } },
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
        0,
        5,
      );
      await check(
        { endUtc: { [op]: bound } },
        [
          ['endUtc', -1],
          ['_id', -1],
        ],
        0,
        5,
      );
      expect(await storage.events.count({ startUtc: { [op]: bound.toISOString() } })).toBe(0);
    }
    const window: Filter = { startUtc: { $gte: bound, $lt: new Date(bound.getTime() + 30 * DAY) } };
    await check(
      window,
      [
        ['startUtc', 1],
        ['_id', 1],
      ],
      0,
      100,
    );
  });

  it('follows a bound that moves a little on every request (a clock-derived window)', async () => {
    for (let i = 0; i < 20; i++) {
      const now = new Date(NOW.getTime() + i * 37 * 60_000);
      const end = new Date(now.getTime() + 400 * DAY - i * 3 * HOUR);
      const filter: Filter = {
        $and: [anonymous(now), { hideFromListings: false }, { startUtc: { $gte: new Date(NOW.getTime() - DAY) } }, { endUtc: { $lte: end } }],
      };
      await check(
        filter,
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
        i,
        10,
      );
      // Alone, the moving bound's own count is the total.
      expect(await storage.events.count({ endUtc: { $lte: end } })).toBe(docs.filter((d) => d.endUtc.getTime() <= end.getTime()).length);
      const from = new Date(NOW.getTime() - i * 5 * HOUR);
      expect(await storage.events.count({ startUtc: { $gt: from } })).toBe(docs.filter((d) => d.startUtc.getTime() > from.getTime()).length);
    }
  });

  it('counts values and lists distinct values of indexed array and scalar fields', async () => {
    const visible = anonymous(NOW);
    const shown = docs.filter((d) => matches(d, visible));
    const tally = (values: number[][]) => {
      const counts = new Map<number, number>();
      for (const list of values) for (const value of new Set(list)) counts.set(value, (counts.get(value) ?? 0) + 1);
      return [...counts].sort((a, b) => a[0] - b[0]).map(([value, count]) => ({ value, count }));
    };
    expect(await storage.events.countValues('categoryIds', visible)).toEqual(tally(shown.map((d) => d.categoryIds)));
    expect(await storage.events.countValues('venueId', visible)).toEqual(tally(shown.map((d) => (d.venueId === null ? [] : [d.venueId]))));
    const live = { status: { $in: ['publish', 'future', 'private'] } };
    const organizers = [...new Set(docs.filter((d) => matches(d, live)).flatMap((d) => d.organizerIds))].sort((a, b) => a - b);
    expect(await storage.events.distinct('organizerIds', live)).toEqual(organizers);
  });

  it('serves the all-words search pattern', async () => {
    for (const query of ['jazz', 'opera cinema', 'robot', 'market jazz']) {
      const filter: Filter = { $and: [anonymous(NOW), { $text: { $search: textSearchOf(query) }, searchTerms: { $all: searchWords(query) } }] };
      const all = (d: EventDoc) => matches(d, anonymous(NOW)) && searchWords(query).every((w) => d.searchTerms.includes(w));
      for (let round = 0; round < 3; round++) {
        const page = await storage.events.findPage({
          filter,
          sort: [
            ['startUtc', 1],
            ['_id', 1],
          ],
          limit: 10,
        });
        const matching = docs.filter(all).sort((a, b) => a.startUtc.getTime() - b.startUtc.getTime() || a._id - b._id);
        expect(page.total).toBe(matching.length);
        expect(page.items.map((d) => d._id)).toEqual(matching.slice(0, 10).map((d) => d._id));
      }
    }
  });

  it('matches any of several words, also once each word alone has been asked for (and kept)', async () => {
    const any = (words: string[]) => (d: EventDoc) => matches(d, anonymous(NOW)) && words.some((w) => d.searchTerms.includes(w));
    const page = async (query: string) => {
      const filter: Filter = { $and: [anonymous(NOW), { $text: { $search: textSearchOf(query) } }] };
      const found = await storage.events.findPage({
        filter,
        sort: [
          ['startUtc', -1],
          ['_id', -1],
        ],
        skip: 3,
        limit: 15,
      });
      const matching = docs.filter(any(searchWords(query))).sort((a, b) => b.startUtc.getTime() - a.startUtc.getTime() || b._id - a._id);
      expect(found.total).toBe(matching.length);
      expect(found.items.map((d) => d._id)).toEqual(matching.slice(3, 18).map((d) => d._id));
    };
    await page('poetry garden choir');
    // Each word alone, often enough for an engine to keep its result.
    for (let round = 0; round < 3; round++) for (const word of ['poetry', 'garden', 'choir']) await page(word);
    for (let round = 0; round < 3; round++) {
      await page('poetry garden choir');
      await page('choir poetry');
    }
  });

  it('answers searches under a status bound that is new on every request, one after another', async () => {
    // The embedded engine evaluates a clause it has not seen before into memory of its own and
    // reuses that memory once the request is over: each request here brings a new clock bound
    // (not cached), a word union (each word kept) and the other clauses, so memory handed back
    // twice, or while still read, shows up as a wrong total or page.
    const words = ['jazz', 'opera', 'robot', 'market'];
    for (let round = 0; round < 2; round++) for (const word of words) await storage.events.count({ $text: { $search: word } });
    const r = random(29);
    for (let i = 0; i < 40; i++) {
      const now = new Date(NOW.getTime() + (i - 20) * 7 * DAY);
      const query = `${words[Math.floor(r() * words.length)]} ${words[Math.floor(r() * words.length)]}`;
      const filter: Filter = {
        $and: [
          anonymous(now),
          { hideFromListings: false },
          { startUtc: { $gte: new Date(NOW.getTime() - 90 * DAY) } },
          { $text: { $search: textSearchOf(query) } },
        ],
      };
      await check(
        filter,
        [
          ['startUtc', 1],
          ['_id', 1],
        ],
        Math.floor(r() * 20),
        10,
      );
    }
  });
});

describe.each(engineCases)('%s engine: planned queries after writes', (_name, engine) => {
  let docs: EventDoc[];
  let storage: Storage;
  beforeEach(async () => {
    storage = await engine.open();
    docs = fixture(1500, 5);
    for (const doc of docs) await storage.events.insertOne(doc);
  }, 120_000);
  afterEach(async () => {
    await storage.close();
  });

  const filters = (now: Date): Filter[] => [
    {
      $and: [
        anonymous(now),
        { hideFromListings: false },
        { startUtc: { $gte: new Date(NOW.getTime() - DAY) } },
        { endUtc: { $lte: new Date(now.getTime() + 300 * DAY) } },
      ],
    },
    { $and: [anonymous(now), { categoryIds: { $in: [3, 4] } }] },
    { $and: [{ featured: true }, { ticketed: false }] },
    { $and: [anonymous(now), { $text: { $search: 'jazz' }, searchTerms: { $all: ['jazz'] } }] },
    { venueId: { $in: [510, 511] } },
  ];
  const sort: Sort = [
    ['startUtc', 1],
    ['_id', 1],
  ];

  /** Runs every filter a few times (so cached results and derived bounds exist), then compares. */
  async function verify(now: Date, extra: Filter[] = []): Promise<void> {
    for (const filter of [...filters(now), ...extra]) {
      for (let round = 0; round < 3; round++) {
        const want = expectedPage(docs, filter, sort, 0, 10);
        const page = await storage.events.findPage({ filter, sort, skip: 0, limit: 10 });
        expect({ ids: page.items.map((d) => d._id), total: page.total }).toEqual(want);
        expect(await storage.events.count(filter)).toBe(want.total);
      }
    }
  }

  async function update(id: number, set: Partial<EventDoc>): Promise<void> {
    const current = docs.find((d) => d._id === id)!;
    const next = { ...current, ...set };
    if (set.title !== undefined) next.searchTerms = searchWords(`${next.title} ${next.description} ${next.excerpt}`);
    await storage.events.updateById(id, { $set: { ...set, ...(set.title !== undefined ? { searchTerms: next.searchTerms } : {}) } });
    docs = docs.map((d) => (d._id === id ? next : d));
  }

  it('changes counts and pages right after updates, deletes and inserts', async () => {
    await verify(NOW);
    const soon = docs.filter((d) => d.startUtc.getTime() > NOW.getTime()).sort((a, b) => a.startUtc.getTime() - b.startUtc.getTime());
    // Unpublish the first upcoming event, hide the second, move the third into the past.
    await update(soon[0]!._id, { status: 'draft' });
    await update(soon[1]!._id, { hideFromListings: true });
    await update(soon[2]!._id, { startUtc: new Date(NOW.getTime() - 10 * DAY), endUtc: new Date(NOW.getTime() - 10 * DAY + HOUR) });
    // Recategorise, retitle, refeature.
    await update(soon[3]!._id, { categoryIds: [3], featured: true, ticketed: false, title: 'jazz jazz jazz', venueId: 510 });
    await update(soon[4]!._id, { categoryIds: [], tagIds: [21], featured: false });
    // Values of the same fields not asked for before the writes: answered from what the writes left.
    await verify(NOW, [
      { featured: false },
      { ticketed: true },
      { featured: false, ticketed: true },
      { hideFromListings: true },
      { categoryIds: { $in: [1, 5] } },
    ]);

    await storage.events.deleteById(soon[5]!._id);
    docs = docs.filter((d) => d._id !== soon[5]!._id);
    const added = makeEventDoc({
      _id: 99_999,
      slug: 'added',
      title: 'Jazz arrives',
      description: '',
      excerpt: '',
      startUtc: new Date(NOW.getTime() + HOUR),
      endUtc: new Date(NOW.getTime() + 2 * HOUR),
      dateUtc: new Date(NOW.getTime() - DAY),
      categoryIds: [4],
      featured: true,
      venueId: 511,
    });
    await storage.events.insertOne(added);
    docs = [...docs, added];
    await verify(NOW);

    const tagCounts = await storage.events.countValues('tagIds', anonymous(NOW));
    const tally = new Map<number, number>();
    for (const d of docs.filter((doc) => matches(doc, anonymous(NOW)))) for (const t of new Set(d.tagIds)) tally.set(t, (tally.get(t) ?? 0) + 1);
    expect(tagCounts).toEqual([...tally].sort((a, b) => a[0] - b[0]).map(([value, count]) => ({ value, count })));

    expect(await storage.events.updateMany({ categoryIds: 4 }, { $pull: { categoryIds: 4 } })).toBe(docs.filter((d) => d.categoryIds.includes(4)).length);
    docs = docs.map((d) => ({ ...d, categoryIds: d.categoryIds.filter((c) => c !== 4) }));
    expect(await storage.events.updateMany({ venueId: 510 }, { $set: { venueId: null } })).toBe(docs.filter((d) => d.venueId === 510).length);
    docs = docs.map((d) => (d.venueId === 510 ? { ...d, venueId: null } : d));
    await verify(NOW);
  });

  it('looks documents up by id lists (duplicates, unknown ids, after deletes and inserts) like the planned filter', async () => {
    const r = random(11);
    await storage.events.deleteById(docs[7]!._id);
    docs = docs.filter((d) => d._id !== docs[7]!._id);
    const added = makeEventDoc({ _id: 5, slug: 'low-id-added-last' });
    await storage.events.insertOne(added);
    docs = [...docs, added];
    const known = docs.map((d) => d._id);
    for (let round = 0; round < 40; round++) {
      const ids = Array.from({ length: 1 + Math.floor(r() * 30) }, () => (r() < 0.2 ? 1 + Math.floor(r() * 20) : known[Math.floor(r() * known.length)]!));
      if (round % 5 === 0) ids.push(ids[0]!, -0, 5);
      const quick = (await storage.events.find({ filter: { _id: { $in: ids } } })).map((d) => d._id);
      // The same condition inside $and goes through the planner.
      const planned = (await storage.events.find({ filter: { $and: [{ _id: { $in: ids } }] } })).map((d) => d._id);
      expect(quick).toEqual(planned);
      expect([...quick].sort((a, b) => a - b)).toEqual(known.filter((id) => ids.includes(id)).sort((a, b) => a - b));
    }
    expect((await storage.events.find({ filter: { _id: docs[3]!._id } })).map((d) => d._id)).toEqual([docs[3]!._id]);
    expect(await storage.events.find({ filter: { _id: { $in: [] } } })).toEqual([]);
  });

  it('looks documents up by slug lists (duplicates, unknown slugs, after a slug changes) like the planned filter', async () => {
    const r = random(12);
    const renamed = docs[4]!;
    await storage.events.updateById(renamed._id, { $set: { slug: `${renamed.slug}-renamed` } });
    docs = docs.map((d) => (d._id === renamed._id ? { ...d, slug: `${renamed.slug}-renamed` } : d));
    await storage.events.deleteById(docs[9]!._id);
    docs = docs.filter((d) => d._id !== docs[9]!._id);
    const known = docs.map((d) => d.slug);
    for (let round = 0; round < 40; round++) {
      const slugs: Array<string | number> = Array.from({ length: 1 + Math.floor(r() * 30) }, () =>
        r() < 0.2 ? `unknown-${Math.floor(r() * 5)}` : known[Math.floor(r() * known.length)]!,
      );
      if (round % 5 === 0) slugs.push(slugs[0]!, renamed.slug, 7);
      const quick = (await storage.events.find({ filter: { slug: { $in: slugs } } })).map((d) => d._id);
      // The same condition inside $and goes through the planner.
      const planned = (await storage.events.find({ filter: { $and: [{ slug: { $in: slugs } }] } })).map((d) => d._id);
      expect(quick).toEqual(planned);
      expect([...quick].sort((a, b) => a - b)).toEqual(
        docs
          .filter((d) => slugs.includes(d.slug))
          .map((d) => d._id)
          .sort((a, b) => a - b),
      );
    }
    expect((await storage.events.find({ filter: { slug: docs[3]!.slug } })).map((d) => d._id)).toEqual([docs[3]!._id]);
    expect(await storage.events.find({ filter: { slug: { $in: [] } } })).toEqual([]);
  });

  it('publishes scheduled events as the clock passes their date', async () => {
    const scheduled = docs.filter((d) => d.status === 'future').sort((a, b) => a.dateUtc.getTime() - b.dateUtc.getTime());
    expect(scheduled.length).toBeGreaterThan(10);
    for (const step of [0, 5, 10]) await verify(scheduled[step]!.dateUtc);
  });

  it('keeps natural order for unsorted reads after writes', async () => {
    await update(docs[10]!._id, { featured: !docs[10]!.featured });
    const read = await storage.events.find({ filter: { ticketed: docs[3]!.ticketed } });
    expect(read.map((d) => d._id)).toEqual(docs.filter((d) => d.ticketed === docs[3]!.ticketed).map((d) => d._id));
  });
});
