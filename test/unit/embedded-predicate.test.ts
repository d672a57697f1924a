/**
 * The embedded engine compiles top-level conditions into closures instead of asking mingo per
 * document. Where mingo follows MongoDB (every operator below), both must agree on every value
 * shape a field can hold: missing, null, scalars of each type, NaN, Dates, arrays (empty, mixed,
 * holding null or nested arrays) and embedded documents.
 */
import { Query } from 'mingo';
import { describe, expect, it } from 'vitest';
import { DateColumn } from '../../src/storage/embedded/date-column.js';
import { parseFilter } from '../../src/storage/embedded/filter.js';
import { compilePredicate, type StoredDoc } from '../../src/storage/embedded/predicate.js';
import { type Filter, type Scalar } from '../../src/storage/port.js';

const D1 = new Date('2026-01-01T00:00:00Z');
const D2 = new Date('2026-06-01T00:00:00Z');
const VALUES: unknown[] = [
  undefined,
  null,
  0,
  -0,
  1,
  2.5,
  -3,
  Number.NaN,
  '',
  'a',
  'b',
  'B',
  true,
  false,
  D1,
  D2,
  [],
  [1],
  [1, 2],
  [null],
  ['a', 'b'],
  [D1],
  [[1]],
  [1, 'a', D2],
  { x: 1 },
  [{ x: 1 }],
];
const OPERANDS: Scalar[] = [null, 0, 1, 2, -3, Number.NaN, 'a', 'b', '', true, false, D1, D2];

function doc(value: unknown): StoredDoc {
  return value === undefined ? { _id: 1 } : { _id: 1, f: value };
}

describe('embedded engine: compiled predicates', () => {
  const filters: Filter[] = [];
  for (const operand of OPERANDS) {
    filters.push({ f: operand }, { f: { $ne: operand } }, { f: { $in: [operand] } }, { f: { $nin: [operand] } });
    // mingo and MongoDB differ on $gte/$lte null (filter.ts rewrites them) and on NaN bounds.
    if (operand !== null && !(typeof operand === 'number' && Number.isNaN(operand))) {
      for (const op of ['$gt', '$gte', '$lt', '$lte']) filters.push({ f: { [op]: operand } });
    }
  }
  filters.push({ f: { $in: [1, 'a', D1] } }, { f: { $nin: [null, 2] } }, { f: { $exists: true } }, { f: { $exists: false } });
  filters.push({ $or: [{ f: 1 }, { f: 'a' }] }, { $nor: [{ f: { $gt: 0 } }] }, { $and: [{ f: { $gte: D1 } }, { f: { $lt: D2 } }] });

  it.each(filters.map((filter) => [JSON.stringify(filter), filter] as const))('%s agrees with mingo', (_name, filter) => {
    const predicate = compilePredicate(parseFilter(filter), { hasAnyTerm: () => false });
    const query = new Query(filter);
    const ranged = /\$(gt|gte|lt|lte)"/.test(JSON.stringify(filter));
    for (const value of VALUES) {
      // mingo lets NaN pass $gte/$lte of any number; MongoDB does not (see the next test).
      if (ranged && typeof value === 'number' && Number.isNaN(value)) continue;
      const d = doc(value);
      expect([value, predicate(d, 0)]).toEqual([value, query.test(d)]);
    }
  });

  it('reads Date ranges from a Date column with the same answers, arrays included', () => {
    const column = new DateColumn('f');
    VALUES.forEach((value, slot) => column.set(slot, doc(value)));
    for (const operand of [D1, D2]) {
      for (const op of ['$gt', '$gte', '$lt', '$lte']) {
        const filter: Filter = { f: { [op]: operand } };
        const predicate = compilePredicate(parseFilter(filter), { hasAnyTerm: () => false, dateColumn: () => column });
        const query = new Query(filter);
        VALUES.forEach((value, slot) => expect([value, op, predicate(doc(value), slot)]).toEqual([value, op, query.test(doc(value))]));
      }
    }
  });

  it('follows MongoDB for NaN: equal only to NaN, neither above nor below any number', () => {
    const test = (filter: Filter, value: unknown) => compilePredicate(parseFilter(filter), { hasAnyTerm: () => false })(doc(value), 0);
    // mongo/db/matcher/expression_leaf.cpp, ComparisonMatchExpression::matchesSingleElement.
    for (const op of ['$gt', '$gte', '$lt', '$lte']) expect(test({ f: { [op]: 0 } }, Number.NaN)).toBe(false);
    expect(test({ f: { $gte: Number.NaN } }, Number.NaN)).toBe(true);
    expect(test({ f: { $lte: Number.NaN } }, Number.NaN)).toBe(true);
    expect(test({ f: { $gt: Number.NaN } }, Number.NaN)).toBe(false);
    expect(test({ f: { $gte: Number.NaN } }, 1)).toBe(false);
    expect(test({ f: Number.NaN }, Number.NaN)).toBe(true);
  });
});
