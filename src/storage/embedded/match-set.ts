/**
 * The documents a filter matches, as the planner hands them to reads: a bitset or an ascending
 * list of slots, whichever evaluating the filter produced, converted only when a reader needs the
 * other form.
 */
import { Bitset } from './bitset.js';

/** The documents a filter matches: a bitset or an ascending list of slots. */
export class MatchSet {
  private membership: Bitset | null;

  private constructor(
    readonly bits: Bitset | null,
    readonly slots: readonly number[] | null,
    readonly size: number,
    private readonly emptyBits: (() => Bitset) | null,
  ) {
    this.membership = bits;
  }

  static ofBits(bits: Bitset, size: number): MatchSet {
    return new MatchSet(bits, null, size, null);
  }

  /** `slots` must be ascending and unique; `emptyBits` gives the (cleared) bitset `asBits` fills. */
  static ofSlots(slots: readonly number[], emptyBits: (() => Bitset) | null = null): MatchSet {
    return new MatchSet(null, slots, slots.length, emptyBits);
  }

  has(slot: number): boolean {
    return this.asBits().has(slot);
  }

  /** The matches as a bitset (built once for a slot list); do not mutate. */
  asBits(): Bitset {
    if (this.membership === null) {
      // The planner's scratch when it made this set; else sized once by the last (largest) slot:
      // grown bit by bit it would be reallocated a dozen times.
      const slots = this.slots!;
      const bits = this.emptyBits?.() ?? Bitset.withCapacity(slots.length === 0 ? 0 : slots[slots.length - 1]! + 1);
      for (const s of slots) bits.add(s);
      this.membership = bits;
    }
    return this.membership;
  }

  /** Ascending slot order (natural order). */
  forEach(visit: (slot: number) => boolean | void): void {
    if (this.bits !== null) {
      this.bits.forEach(visit);
      return;
    }
    for (const slot of this.slots!) if (visit(slot) === false) return;
  }

  toArray(): number[] {
    return this.bits !== null ? this.bits.toArray() : [...this.slots!];
  }
}

/** Below this many slots an insertion sort is faster than a typed array's (and allocates no ArrayBuffer). */
const INSERTION_SORT_MAX = 64;

/** Ascending slots without repeats. */
export function sortedUnique(slots: number[]): number[] {
  if (slots.length < 2) return slots;
  if (slots.length <= INSERTION_SORT_MAX) return insertionSortedUnique(slots);
  const typed = Int32Array.from(slots).sort();
  const out: number[] = [typed[0]!];
  for (let i = 1; i < typed.length; i++) if (typed[i] !== typed[i - 1]) out.push(typed[i]!);
  return out;
}

/** sortedUnique of a few slots (a page's linked records, an include list): a copy sorted in place. */
function insertionSortedUnique(slots: readonly number[]): number[] {
  const out = slots.slice();
  for (let i = 1; i < out.length; i++) {
    const slot = out[i]!;
    let j = i - 1;
    while (j >= 0 && out[j]! > slot) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = slot;
  }
  let kept = 1;
  for (let i = 1; i < out.length; i++) if (out[i] !== out[kept - 1]) out[kept++] = out[i]!;
  out.length = kept;
  return out;
}
