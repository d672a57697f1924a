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

/** Ascending slots without repeats. */
export function sortedUnique(slots: number[]): number[] {
  if (slots.length < 2) return slots;
  const typed = Int32Array.from(slots).sort();
  const out: number[] = [typed[0]!];
  for (let i = 1; i < typed.length; i++) if (typed[i] !== typed[i - 1]) out.push(typed[i]!);
  return out;
}
