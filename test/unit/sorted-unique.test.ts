/**
 * sortedUnique (the embedded engine's slot lists): ascending, without repeats, for lists short
 * enough for its insertion sort and longer ones alike.
 */
import { describe, expect, it } from 'vitest';
import { sortedUnique } from '../../src/storage/embedded/match-set.js';
import { random } from '../helpers/random.js';

describe('sortedUnique', () => {
  it('orders and deduplicates lists of every length around the insertion-sort limit', () => {
    const next = random(5);
    for (let length = 0; length <= 140; length++) {
      const slots = Array.from({ length }, () => Math.floor(next() * (length + 5)));
      const expected = [...new Set(slots)].sort((a, b) => a - b);
      const input = [...slots];
      expect(sortedUnique(input)).toEqual(expected);
      // The caller's list is left as it was.
      expect(input).toEqual(slots);
    }
  });
});
