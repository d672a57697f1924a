/**
 * A column of one top-level field's Date values as epoch milliseconds by slot. Range tests on
 * Dates (`dateUtc <= now` over the scheduled posts, `endUtc` bounds over a category's events) then
 * read one number from a typed array instead of following two pointers per document, which
 * dominates once the documents no longer fit in the CPU caches.
 */
import { Bitset } from './bitset.js';
import { type StoredDoc } from './predicate.js';

export class DateColumn {
  readonly field: string;
  /** Epoch ms, or NaN when the field is not a valid Date (missing, null, another type, an array). */
  private times = new Float64Array(1024);
  /** Slots whose field holds an array: their elements need the full matcher. */
  readonly arrays = new Bitset();

  constructor(field: string) {
    this.field = field;
  }

  get values(): Float64Array {
    return this.times;
  }

  set(slot: number, doc: StoredDoc | undefined): void {
    if (slot >= this.times.length) {
      const grown = new Float64Array(Math.max(slot + 1, this.times.length * 2));
      grown.set(this.times);
      this.times = grown;
    }
    const value = doc === undefined || !Object.hasOwn(doc, this.field) ? undefined : doc[this.field];
    this.times[slot] = value instanceof Date ? value.getTime() : Number.NaN;
    this.arrays.assign(slot, Array.isArray(value));
  }
}
