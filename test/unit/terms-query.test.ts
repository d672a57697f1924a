/**
 * Term list compilation (src/query/terms.ts): the storage filter, the
 * substring search, WordPress's `orderby`/`order` rules and the in-memory sort.
 */
import { describe, expect, it } from 'vitest';
import { compileTermFilter, matchesSearch, resolveOrder, resolveOrderBy, sortTerms, type TermListFilter, type TermOrderBy } from '../../src/query/terms.js';
import { type Filter, type TermDoc } from '../../src/storage/port.js';

describe('compileTermFilter', () => {
  it.each<[string, TermListFilter, Filter]>([
    ['no filter', {}, {}],
    ['include', { include: [4, 2] }, { _id: { $in: [4, 2] } }],
    ['an empty include (matches nothing)', { include: [] }, { _id: { $in: [] } }],
    ['exclude', { exclude: [3] }, { _id: { $nin: [3] } }],
    ['an empty exclude (excludes nothing)', { exclude: [] }, {}],
    ['parent', { parent: 7 }, { parent: 7 }],
    ['parent 0 (roots)', { parent: 0 }, { parent: 0 }],
    ['slug', { slug: 'jazz' }, { slug: 'jazz' }],
    ['the terms of an event', { ofEvent: [5, 6] }, { _id: { $in: [5, 6] } }],
    ['the terms of an event without terms', { ofEvent: [] }, { _id: { $in: [] } }],
    [
      'include and the terms of an event (both must hold)',
      { include: [1, 2], ofEvent: [2, 3] },
      { $and: [{ _id: { $in: [1, 2] } }, { _id: { $in: [2, 3] } }] },
    ],
    ['exclude and parent', { exclude: [9], parent: 1 }, { $and: [{ _id: { $nin: [9] } }, { parent: 1 }] }],
    [
      'everything',
      { include: [1], ofEvent: [1, 2], exclude: [2], parent: 0, slug: 'a' },
      { $and: [{ _id: { $in: [1] } }, { _id: { $in: [1, 2] } }, { _id: { $nin: [2] } }, { parent: 0 }, { slug: 'a' }] },
    ],
  ])('%s', (_label, input, expected) => {
    expect(compileTermFilter(input)).toEqual(expected);
  });
});

describe('matchesSearch', () => {
  const foo = { name: 'Foo', slug: 'foo' };
  const one = { name: 'One', slug: 'foo-bar' };
  const cafe = { name: 'Café Concerts', slug: 'cafe-concerts' };

  it.each([
    ['the whole name, another case', foo, 'FOO', true],
    ['part of the name', foo, 'oo', true],
    ['part of the slug only', one, 'bar', true],
    ['across the slug separator', one, 'o-b', true],
    ['a name with an accent, in another case', cafe, 'CAFÉ', true],
    ['the slug spelling of an accented name', cafe, 'cafe-c', true],
    ['a word that is in neither', foo, 'zoot', false],
    ['a longer string than the name', foo, 'food', false],
    ['words in another order', cafe, 'concerts café', false],
  ])('%s', (_label, term, search, expected) => {
    expect(matchesSearch(term, search)).toBe(expected);
  });

  it('treats regular-expression characters literally', () => {
    expect(matchesSearch({ name: 'Rock (live)', slug: 'rock-live' }, '(live)')).toBe(true);
    expect(matchesSearch({ name: 'Rock', slug: 'rock' }, '.*')).toBe(false);
  });
});

describe('resolveOrderBy', () => {
  it.each<[string | undefined, TermOrderBy]>([
    [undefined, 'name'],
    ['name', 'name'],
    ['NAME', 'name'],
    ['id', 'id'],
    ['ID', 'id'],
    ['term_id', 'id'],
    ['Term_Id', 'id'],
    ['slug', 'slug'],
    ['description', 'description'],
    ['count', 'count'],
    ['parent', 'parent'],
    ['term_group', 'term_group'],
    ['include', 'include'],
    ['foo', 'name'],
    ['date', 'name'],
    ['name desc', 'name'],
  ])('%s → %s', (raw, expected) => {
    expect(resolveOrderBy(raw)).toBe(expected);
  });
});

describe('resolveOrder', () => {
  it.each<[string | undefined, 1 | -1]>([
    [undefined, 1],
    ['asc', 1],
    ['ASC', 1],
    ['Asc', 1],
    ['desc', -1],
    ['DESC', -1],
    ['foo', -1],
    ['ascending', -1],
    [' asc', -1],
  ])('%s → %s', (raw, expected) => {
    expect(resolveOrder(raw)).toBe(expected);
  });
});

describe('sortTerms', () => {
  const term = (_id: number, name: string, extra: Partial<TermDoc> = {}): TermDoc => ({
    _id,
    name,
    nameKey: name.toLowerCase(),
    slug: name.toLowerCase().replace(/\s+/g, '-'),
    description: '',
    parent: 0,
    ...extra,
  });
  // The reference's ordering test: names b, A, C created in that order.
  const b = term(1, 'b', { description: 'zeta', parent: 3 });
  const A = term(2, 'A', { description: 'alpha', parent: 0 });
  const C = term(3, 'C', { description: 'Mu', parent: 1 });
  const terms = [b, A, C];
  const noCounts = new Map<number, number>();
  const ids = (list: TermDoc[]) => list.map((t) => t._id);

  it('by name ascending ignores case (A, b, C)', () => {
    expect(sortTerms(terms, 'name', 1, noCounts).map((t) => t.name)).toEqual(['A', 'b', 'C']);
  });

  it('by name descending (C, b, A)', () => {
    expect(sortTerms(terms, 'name', -1, noCounts).map((t) => t.name)).toEqual(['C', 'b', 'A']);
  });

  it('by id in both directions', () => {
    expect(ids(sortTerms(terms, 'id', 1, noCounts))).toEqual([1, 2, 3]);
    expect(ids(sortTerms(terms, 'id', -1, noCounts))).toEqual([3, 2, 1]);
  });

  it('by count, from the given counts (missing = 0), ties by id', () => {
    const counts = new Map([
      [1, 5],
      [3, 2],
    ]);
    expect(ids(sortTerms(terms, 'count', 1, counts))).toEqual([2, 3, 1]);
    expect(ids(sortTerms(terms, 'count', -1, counts))).toEqual([1, 3, 2]);
    expect(
      ids(
        sortTerms(
          terms,
          'count',
          1,
          new Map([
            [1, 1],
            [2, 1],
            [3, 1],
          ]),
        ),
      ),
    ).toEqual([1, 2, 3]);
  });

  it('by slug, description and parent', () => {
    expect(ids(sortTerms(terms, 'slug', 1, noCounts))).toEqual([2, 1, 3]);
    // Case-insensitive: alpha, Mu, zeta.
    expect(ids(sortTerms(terms, 'description', 1, noCounts))).toEqual([2, 3, 1]);
    expect(ids(sortTerms(terms, 'parent', 1, noCounts))).toEqual([2, 3, 1]);
  });

  it('by term_group (always 0): falls back to id order', () => {
    expect(ids(sortTerms(terms, 'term_group', 1, noCounts))).toEqual([1, 2, 3]);
    expect(ids(sortTerms(terms, 'term_group', -1, noCounts))).toEqual([3, 2, 1]);
  });

  it('by include: the order of the include list', () => {
    expect(ids(sortTerms(terms, 'include', 1, noCounts, [3, 1, 2]))).toEqual([3, 1, 2]);
    expect(ids(sortTerms(terms, 'include', -1, noCounts, [3, 1, 2]))).toEqual([2, 1, 3]);
  });

  it('compares names as text, accents and case aside, ties by id', () => {
    const list = [term(10, 'Item 2'), term(11, 'item 10'), term(12, 'Éclair'), term(13, 'eclair')];
    expect(ids(sortTerms(list, 'name', 1, noCounts))).toEqual([12, 13, 11, 10]);
  });

  it('returns a new array and leaves the input as it was', () => {
    const input = [...terms];
    const out = sortTerms(input, 'name', 1, noCounts);
    expect(out).not.toBe(input);
    expect(ids(input)).toEqual([1, 2, 3]);
  });

  it('sorts nothing to nothing', () => {
    expect(sortTerms([], 'name', 1, noCounts)).toEqual([]);
  });
});
