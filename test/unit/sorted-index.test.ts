/**
 * SortedIndex defers placing added entries until the next read (a bulk load then costs one sort);
 * whether the pending entries are merged by a re-sort or inserted one by one, reads must see exactly
 * the entries a plain sorted list holds, in BSON order with ties by _id.
 */
import { describe, expect, it } from 'vitest';
import { Bitset } from '../../src/storage/embedded/bitset.js';
import { compareValues } from '../../src/storage/embedded/bson.js';
import { SortedIndex } from '../../src/storage/embedded/sorted-index.js';
import { random } from '../helpers/random.js';

interface Doc {
  _id: number;
  status: string;
  startUtc: Date;
  tagIds: number[];
}

/** Every entry of the index in order, read through `seek` and `collect`. */
function slotsInOrder(index: SortedIndex): number[] {
  const out: number[] = [];
  index.collect(0, index.size, out);
  return out;
}

function expected(docs: Map<number, Doc>, key: (doc: Doc) => unknown[][]): number[] {
  const entries: Array<{ tuple: unknown[]; id: number }> = [];
  for (const doc of docs.values()) for (const tuple of key(doc)) entries.push({ tuple, id: doc._id });
  entries.sort((a, b) => {
    for (let c = 0; c < a.tuple.length; c++) {
      const order = compareValues(a.tuple[c], b.tuple[c]);
      if (order !== 0) return order;
    }
    return a.id - b.id;
  });
  // Slots are ids here.
  return entries.map((e) => e.id);
}

describe('SortedIndex: deferred placement of added entries', () => {
  it('reads the same order as a plain sorted list across bulk rounds, single inserts and removals', () => {
    const next = random(7);
    const compound = new SortedIndex('status_start', ['status', 'startUtc']);
    const multikey = new SortedIndex('tags_start', ['tagIds', 'startUtc']);
    const docs = new Map<number, Doc>();
    let id = 0;
    // Round sizes cover both merge paths: large rounds (re-sort) and rounds under a sixteenth (one by one).
    for (const size of [1, 500, 3, 2000, 40, 1, 120, 5000, 2, 90]) {
      for (let i = 0; i < size; i++) {
        id += 1 + Math.floor(next() * 3);
        const doc: Doc = {
          _id: id,
          status: next() < 0.8 ? 'publish' : 'draft',
          startUtc: new Date(Date.UTC(2026, 0, 1) + Math.floor(next() * 500) * 3_600_000),
          tagIds: next() < 0.3 ? [] : [1 + Math.floor(next() * 5), 1 + Math.floor(next() * 5)],
        };
        docs.set(doc._id, doc);
        compound.add(doc._id, doc._id, doc);
        multikey.add(doc._id, doc._id, doc);
      }
      // Removals read the index first, so they also settle what is pending.
      for (const doc of [...docs.values()].filter(() => next() < 0.02)) {
        compound.remove(doc._id, doc._id, doc);
        multikey.remove(doc._id, doc._id, doc);
        docs.delete(doc._id);
      }
      for (let i = 0; i < 5; i++) {
        id += 1;
        const doc: Doc = { _id: id, status: 'publish', startUtc: new Date(Date.UTC(2026, 3, 1, i)), tagIds: [3] };
        docs.set(doc._id, doc);
        compound.add(doc._id, doc._id, doc);
        multikey.add(doc._id, doc._id, doc);
      }
      expect(slotsInOrder(compound)).toEqual(expected(docs, (d) => [[d.status, d.startUtc]]));
      // Key extraction (multikey expansion, the empty array's key) is not what is tested here.
      expect(slotsInOrder(multikey)).toEqual(expected(docs, (d) => multikey.tuplesOf(d)));
      // A seek lands where the plain list says: the first draft entry, the first entry of tag 3.
      const all = expected(docs, (d) => [[d.status, d.startUtc]]);
      expect(compound.seek(['publish'], false)).toBe(all.filter((slot) => docs.get(slot)!.status === 'draft').length);
      expect(compound.leadingCount('draft')).toBe([...docs.values()].filter((d) => d.status === 'draft').length);
    }
    expect(docs.size).toBeGreaterThan(7000);
  });

  it('derives key tuples like MongoDB: missing as null, arrays expanded, the empty array its own key', () => {
    const index = new SortedIndex('a_b', ['a', 'b']);
    const at = new Date(Date.UTC(2026, 0, 1));
    expect(index.tuplesOf({ a: 'x', b: at })).toEqual([['x', at]]);
    expect(index.tuplesOf({ a: 1 })).toEqual([[1, null]]);
    expect(index.tuplesOf({ a: null, b: undefined })).toEqual([[null, null]]);
    expect(index.tuplesOf({ a: [2, 1, 2], b: 'y' })).toEqual([
      [2, 'y'],
      [1, 'y'],
    ]);
    // NaN equals NaN as a key (once per document), and 0 and -0 are one key.
    expect(index.tuplesOf({ a: [Number.NaN, 1, Number.NaN], b: 'y' })).toEqual([
      [Number.NaN, 'y'],
      [1, 'y'],
    ]);
    expect(index.tuplesOf({ a: [0, -0], b: 'y' })).toHaveLength(1);
    expect(index.tuplesOf({ a: [], b: 0 })).toHaveLength(1);
    expect(index.tuplesOf({ a: [], b: 0 })[0]![1]).toBe(0);
    expect(index.tuplesOf({ a: { n: 1 }, b: 0 })).toEqual([[{ n: 1 }, 0]]);
    const nested = new SortedIndex('a.n', ['a.n']);
    expect(nested.tuplesOf({ a: [{ n: 1 }, { n: 3 }] })).toEqual([[1], [3]]);
    // Arrays are counted per field (a multikey field cannot serve ordered walks).
    index.add(1, 1, { a: [1, 2], b: 'z' });
    index.add(2, 2, { a: 3, b: 'z' });
    expect(index.arrayDocs).toEqual([1, 0]);
    // Added documents key missing fields as null too (the scalar path pushes components directly).
    const added = new SortedIndex('a_b', ['a', 'b']);
    added.add(1, 1, { b: 'z' });
    added.add(2, 2, { a: undefined, b: 'y' });
    added.add(3, 3, { a: 1 });
    expect(added.leadingValues()).toEqual(expect.arrayContaining([null, 1]));
    expect(added.leadingValues()).not.toContain(undefined);
    const slots: number[] = [];
    added.collect(added.seek([null], false), added.seek([null], true), slots);
    expect(slots).toEqual([2, 1]);
    const withB: number[] = [];
    added.collect(added.seek([1, null], false), added.seek([1, null], true), withB);
    expect(withB).toEqual([3]);
    // The stored key components themselves are null, as a walk reads them.
    const all = new Bitset();
    for (const slot of [1, 2, 3]) all.add(slot);
    for (const component of [0, 1]) {
      const read: unknown[] = [];
      for (const cursor = added.cursor(0, added.size, 1, component, all); !cursor.done; cursor.next()) read.push(cursor.value);
      expect(read).not.toContain(undefined);
      expect(read.filter((value) => value === null)).toHaveLength(component === 0 ? 2 : 1);
    }
  });

  it('answers leading values and counts of a unique index from its entries', () => {
    const next = random(11);
    const unique = new SortedIndex('slug_unique', ['slug'], { unique: true });
    const plain = new SortedIndex('slug', ['slug']);
    const slugs = new Map<number, string>();
    for (let id = 1; id <= 3000; id++) {
      const doc = { _id: id, slug: `event-${Math.floor(next() * 1e9)}-${id}` };
      slugs.set(id, doc.slug);
      unique.add(id, id, doc);
      plain.add(id, id, doc);
    }
    for (let id = 1; id <= 3000; id += 7) {
      unique.remove(id, id, { _id: id, slug: slugs.get(id) });
      plain.remove(id, id, { _id: id, slug: slugs.get(id) });
      slugs.delete(id);
    }
    expect(unique.distinctLeading).toBe(slugs.size);
    expect(plain.distinctLeading).toBe(slugs.size);
    expect(unique.leadingValues()).toEqual([...plain.leadingValues()].sort((a, b) => compareValues(a, b)));
    const present = slugs.get(2)!;
    expect([unique.leadingCount(present), unique.leadingCount('absent')]).toEqual([1, 0]);
    expect([plain.leadingCount(present), plain.leadingCount('absent')]).toEqual([1, 0]);
  });
});
