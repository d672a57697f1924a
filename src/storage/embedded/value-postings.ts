/**
 * Postings (value → slots) of one top-level field that no index declares but equality clauses keep
 * asking for (`searchTerms` words after `$text`, `hideFromListings`, `featured`). One pass over the
 * documents builds the postings of every value at once, where materialising each clause by its own
 * scan would read every document once per value (once per search word). Kept current on writes.
 * Only non-null, non-NaN scalars are served (MongoDB's null and NaN equality need the matcher).
 */
import { Bitset } from './bitset.js';
import { type StoredDoc } from './predicate.js';

/** Slots of one value: a compact list while small, a bitset once that is smaller. */
class Posting {
  private list: Int32Array | null = new Int32Array(4);
  private bits: Bitset | null = null;
  size = 0;
  /** A document's keys are added together: a repeated element finds its slot just added. */
  private last = -1;

  add(slot: number, capacity: number): void {
    if (slot === this.last) return;
    this.last = slot;
    this.size += 1;
    if (this.bits !== null) {
      this.bits.add(slot);
      return;
    }
    let list = this.list!;
    if (this.size > list.length) {
      // A bitset costs capacity/8 bytes, a list 4 bytes a slot.
      if (this.size > Math.max(1024, capacity / 32)) {
        const bits = new Bitset();
        for (let i = 0; i < this.size - 1; i++) bits.add(list[i]!);
        bits.add(slot);
        this.bits = bits;
        this.list = null;
        return;
      }
      const grown = new Int32Array(list.length * 2);
      grown.set(list);
      this.list = list = grown;
    }
    list[this.size - 1] = slot;
  }

  remove(slot: number): void {
    if (slot === this.last) this.last = -1;
    if (this.bits !== null) {
      if (this.bits.has(slot)) {
        this.bits.delete(slot);
        this.size -= 1;
      }
      return;
    }
    const list = this.list!;
    const at = list.subarray(0, this.size).indexOf(slot);
    if (at < 0) return;
    list[at] = list[this.size - 1]!;
    this.size -= 1;
  }

  slots(): number[] {
    return this.bits !== null ? this.bits.toArray() : Array.from(this.list!.subarray(0, this.size));
  }

  /** Adds this posting's slots to `bits`. */
  orInto(bits: Bitset): void {
    if (this.bits !== null) {
      bits.or(this.bits);
      return;
    }
    const list = this.list!;
    for (let i = 0; i < this.size; i++) bits.add(list[i]!);
  }
}

/** The map (by type bracket) a scalar's posting lives in, or -1 for values never looked up. */
function bracketOf(value: unknown): 0 | 1 | 2 | 3 | -1 {
  switch (typeof value) {
    case 'string':
      return 0;
    case 'number':
      return Number.isNaN(value) ? -1 : 1;
    case 'boolean':
      return 2;
    default:
      return value instanceof Date && !Number.isNaN(value.getTime()) ? 3 : -1;
  }
}

/** The key within its bracket, with MongoDB's equality: numbers by value (-0 is 0), Dates by time. */
function keyOf(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  return value === 0 ? 0 : value;
}

export class ValuePostings {
  readonly field: string;
  /** strings, numbers, booleans, Dates. */
  private readonly postings = [new Map<unknown, Posting>(), new Map<unknown, Posting>(), new Map<unknown, Posting>(), new Map<unknown, Posting>()] as const;

  constructor(field: string) {
    this.field = field;
  }

  /** Each distinct scalar a document holds, as its value or as an element (other types are never looked up). */
  private forEachKey(doc: StoredDoc | undefined, visit: (map: Map<unknown, Posting>, key: unknown) => void): void {
    if (doc === undefined || !Object.hasOwn(doc, this.field)) return;
    const value = doc[this.field];
    const elements = Array.isArray(value) ? value : [value];
    for (const element of elements) {
      const bracket = bracketOf(element);
      if (bracket >= 0) visit(this.postings[bracket as 0 | 1 | 2 | 3], keyOf(element));
    }
  }

  add(slot: number, doc: StoredDoc | undefined, capacity: number): void {
    this.forEachKey(doc, (map, key) => {
      let posting = map.get(key);
      if (posting === undefined) {
        posting = new Posting();
        map.set(key, posting);
      }
      posting.add(slot, capacity);
    });
  }

  remove(slot: number, doc: StoredDoc | undefined): void {
    this.forEachKey(doc, (map, key) => {
      const posting = map.get(key);
      if (posting === undefined) return;
      posting.remove(slot);
      if (posting.size === 0) map.delete(key);
    });
  }

  /** The posting of a value (undefined: no document holds it). */
  lookup(value: unknown): Posting | undefined {
    const bracket = bracketOf(value);
    return bracket < 0 ? undefined : this.postings[bracket as 0 | 1 | 2 | 3].get(keyOf(value));
  }
}

export type { Posting };
