/**
 * The category tree (src/query/category-tree.ts): descendants for the event list's `categories`
 * filter, cycle detection for `parent` on writes, and direct children for re-parenting on delete.
 * Every function works on flat `{ _id, parent }` records and must terminate on corrupt (cyclic) data.
 */
import { describe, expect, it } from 'vitest';
import { childrenOf, createsCycle, type TreeNode, withDescendants } from '../../src/query/category-tree.js';

const node = (_id: number, parent: number): TreeNode => ({ _id, parent });

/**
 * Two roots and a childless root:
 *   1 ─┬─ 2 ─┬─ 4 ── 7 ── 8
 *      │     └─ 5
 *      └─ 3
 *   10 ── 11 ── 12
 *   20
 */
const FOREST: TreeNode[] = [
  node(1, 0),
  node(2, 1),
  node(3, 1),
  node(4, 2),
  node(5, 2),
  node(7, 4),
  node(8, 7),
  node(10, 0),
  node(11, 10),
  node(12, 11),
  node(20, 0),
];

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe('withDescendants', () => {
  it.each([
    ['a leaf', [5], [5]],
    ['a node one level up', [4], [4, 7, 8]],
    ['an inner node', [2], [2, 4, 5, 7, 8]],
    ['a root of a deep tree', [1], [1, 2, 3, 4, 5, 7, 8]],
    ['a root without children', [20], [20]],
    ['two roots', [1, 10], [1, 2, 3, 4, 5, 7, 8, 10, 11, 12]],
    ['a node and one of its own descendants (no duplicates)', [2, 7], [2, 4, 5, 7, 8]],
    ['nodes of two trees', [4, 11], [4, 7, 8, 11, 12]],
    ['nothing', [], []],
  ])('of %s', (_label, ids, expected) => {
    const result = withDescendants(ids, FOREST);
    expect(sorted(result)).toEqual(expected);
    expect(new Set(result).size).toBe(result.length);
  });

  it('keeps an id that is not in the tree (it simply has no descendants)', () => {
    expect(withDescendants([99], FOREST)).toEqual([99]);
  });

  it('does not go up the tree or sideways', () => {
    expect(withDescendants([7], FOREST)).not.toContain(4);
    expect(withDescendants([3], FOREST)).toEqual([3]);
  });

  it('follows a chain far deeper than any recursion limit would allow', () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => node(i + 1, i));
    const result = withDescendants([1], chain);
    expect(result).toHaveLength(20_000);
    expect(sorted(result)[19_999]).toBe(20_000);
  });

  it('terminates on a cycle in stored data, returning each member once', () => {
    // 31 → 32 → 33 → 31, with 34 hanging off 33.
    const cyclic = [node(31, 33), node(32, 31), node(33, 32), node(34, 33)];
    expect(sorted(withDescendants([31], cyclic))).toEqual([31, 32, 33, 34]);
    expect(sorted(withDescendants([34], cyclic))).toEqual([34]);
  });

  it('terminates on a node that is its own parent', () => {
    expect(sorted(withDescendants([40], [node(40, 40), node(41, 40)]))).toEqual([40, 41]);
  });

  it('does not depend on the order of the records', () => {
    const reversed = [...FOREST].reverse();
    expect(sorted(withDescendants([1], reversed))).toEqual(sorted(withDescendants([1], FOREST)));
  });
});

describe('createsCycle', () => {
  it.each([
    ['itself', 2, 2, true],
    ['its direct child', 2, 4, true],
    ['a deep descendant', 1, 8, true],
    ['its own parent (no change)', 4, 2, false],
    ['an ancestor', 8, 1, false],
    ['a sibling', 4, 5, false],
    ['a node of another tree', 2, 12, false],
    ['none (0 makes it a root)', 2, 0, false],
    ['a root without children', 20, 1, false],
  ])('making a node a child of %s', (_label, id, parent, expected) => {
    expect(createsCycle(id, parent, FOREST)).toBe(expected);
  });

  it('refuses a parent that would close a cycle even when the tree already has one elsewhere', () => {
    const data = [...FOREST, node(31, 32), node(32, 31)];
    expect(createsCycle(10, 12, data)).toBe(true);
    expect(createsCycle(12, 10, data)).toBe(false);
  });

  it('answers for a node that is not stored yet (nothing descends from it)', () => {
    expect(createsCycle(99, 1, FOREST)).toBe(false);
    expect(createsCycle(99, 99, FOREST)).toBe(true);
  });
});

describe('childrenOf', () => {
  it.each([
    ['a node with two children', 1, [2, 3]],
    ['an inner node', 2, [4, 5]],
    ['a node with one child', 7, [8]],
    ['a leaf', 8, []],
    ['an unknown id', 99, []],
  ])('of %s: only the direct children', (_label, id, expected) => {
    expect(sorted(childrenOf(id, FOREST))).toEqual(expected);
  });

  it('of 0: the roots', () => {
    expect(sorted(childrenOf(0, FOREST))).toEqual([1, 10, 20]);
  });

  it('is not thrown off by a cycle', () => {
    expect(childrenOf(31, [node(31, 32), node(32, 31)])).toEqual([32]);
  });
});
