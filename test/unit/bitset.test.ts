/**
 * Bitset.andAll (src/storage/embedded/bitset.ts): the conjunction of many bitsets and its count,
 * visiting only the words still non-zero after the first operand, must equal ANDing them one by one
 * — for random bitsets of different lengths and densities (a selective clause, dense clauses, empty
 * ones, operands shorter and longer than the target), and after a larger call has grown the shared
 * word list.
 */
import { describe, expect, it } from 'vitest';
import { Bitset } from '../../src/storage/embedded/bitset.js';
import { random } from '../helpers/random.js';

const next = random(4242);

function randomBits(slots: number, density: number): Bitset {
  const bits = Bitset.withCapacity(slots);
  for (let slot = 0; slot < slots; slot++) if (next() < density) bits.add(slot);
  return bits;
}

describe('Bitset.andAll', () => {
  it('equals ANDing one by one, with the count of what is left', () => {
    for (let round = 0; round < 300; round++) {
      const slots = 1 + Math.floor(next() * 5000);
      const target = randomBits(slots, next());
      const others = Array.from({ length: Math.floor(next() * 6) }, () => {
        const densities = [0, 0.001, 0.02, 0.3, 0.9, 1];
        return randomBits(Math.max(1, Math.floor(slots * (0.5 + next()))), densities[Math.floor(next() * densities.length)]!);
      });
      const expected = target.copy();
      for (const other of others) expected.and(other);
      const result = target.copy();
      const count = result.andAll(others);
      expect(Array.from(result.words)).toEqual(Array.from(expected.words));
      expect(count).toBe(expected.count());
    }
  });

  it('clears the target words past a shorter first operand and drops words a later operand lacks', () => {
    const target = Bitset.withCapacity(200);
    for (const slot of [1, 40, 100, 199]) target.add(slot);
    const short = Bitset.withCapacity(64);
    for (const slot of [1, 40]) short.add(slot);
    const shorter = Bitset.withCapacity(32);
    shorter.add(1);
    expect(target.copy().andAll([short])).toBe(2);
    const both = target.copy();
    expect(both.andAll([short, shorter])).toBe(1);
    expect(both.toArray()).toEqual([1]);
  });
});
