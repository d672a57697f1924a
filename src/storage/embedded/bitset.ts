/**
 * A growable bitset over document slots. Counting a conjunction of clauses as the popcount of the
 * AND of their bitsets costs slots/32 word operations per clause, whatever the number of matches,
 * which is what keeps list totals cheap at a million documents.
 */

const EMPTY = new Uint32Array(0);
/** andAll's list of the words still non-zero: one buffer for every call (calls do not nest). */
let liveWords = new Uint32Array(1024);

/** Set bits of a 32-bit word (SWAR popcount; JavaScript has no intrinsic). */
export function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export class Bitset {
  words: Uint32Array;

  constructor(words: Uint32Array = EMPTY) {
    this.words = words;
  }

  static withCapacity(slots: number): Bitset {
    return new Bitset(new Uint32Array((slots + 31) >>> 5));
  }

  copy(): Bitset {
    return new Bitset(this.words.slice());
  }

  /** Makes this a copy of `other`, reusing this bitset's memory when it is large enough. */
  copyFrom(other: Bitset): this {
    if (this.words.length < other.words.length) {
      this.words = other.words.slice();
      return this;
    }
    this.words.set(other.words);
    this.words.fill(0, other.words.length);
    return this;
  }

  clear(): this {
    this.words.fill(0);
    return this;
  }

  has(slot: number): boolean {
    const word = this.words[slot >>> 5];
    return word !== undefined && (word & (1 << (slot & 31))) !== 0;
  }

  add(slot: number): void {
    const index = slot >>> 5;
    if (index >= this.words.length) this.grow(index + 1);
    this.words[index]! |= 1 << (slot & 31);
  }

  delete(slot: number): void {
    const index = slot >>> 5;
    if (index < this.words.length) this.words[index]! &= ~(1 << (slot & 31));
  }

  assign(slot: number, value: boolean): void {
    if (value) this.add(slot);
    else this.delete(slot);
  }

  private grow(minWords: number): void {
    const next = new Uint32Array(Math.max(minWords, this.words.length * 2, 64));
    next.set(this.words);
    this.words = next;
  }

  /** this &= other (bits beyond other's length are cleared). */
  and(other: Bitset): this {
    const a = this.words;
    const b = other.words;
    const shared = Math.min(a.length, b.length);
    for (let i = 0; i < shared; i++) a[i]! &= b[i]!;
    if (a.length > shared) a.fill(0, shared);
    return this;
  }

  /**
   * this &= each of `others`, in order, and the number of bits left set. After the first operand
   * only the words still non-zero are visited: a selective conjunction (two search words) leaves a
   * few thousand of a million-document bitset's 31,250 words, and the other clauses' ANDs and the
   * count then cost that many steps instead of a full pass each.
   */
  andAll(others: readonly Bitset[]): number {
    if (others.length === 0) return this.count();
    const a = this.words;
    const live = liveWords.length >= a.length ? liveWords : (liveWords = new Uint32Array(a.length));
    let n = 0;
    const b = others[0]!.words;
    const shared = Math.min(a.length, b.length);
    for (let i = 0; i < shared; i++) {
      const word = a[i]! & b[i]!;
      a[i] = word;
      if (word !== 0) live[n++] = i;
    }
    if (a.length > shared) a.fill(0, shared);
    for (let k = 1; k < others.length; k++) {
      const c = others[k]!.words;
      let kept = 0;
      for (let j = 0; j < n; j++) {
        const i = live[j]!;
        const word = i < c.length ? a[i]! & c[i]! : 0;
        a[i] = word;
        if (word !== 0) live[kept++] = i;
      }
      n = kept;
    }
    let total = 0;
    for (let j = 0; j < n; j++) total += popcount32(a[live[j]!]!);
    return total;
  }

  /** this |= other. */
  or(other: Bitset): this {
    const b = other.words;
    if (b.length > this.words.length) this.grow(b.length);
    const a = this.words;
    for (let i = 0; i < b.length; i++) a[i]! |= b[i]!;
    return this;
  }

  /** this &= ~other. */
  andNot(other: Bitset): this {
    const a = this.words;
    const b = other.words;
    const shared = Math.min(a.length, b.length);
    for (let i = 0; i < shared; i++) a[i]! &= ~b[i]!;
    return this;
  }

  count(): number {
    const a = this.words;
    let total = 0;
    for (let i = 0; i < a.length; i++) {
      const word = a[i]!;
      if (word !== 0) total += popcount32(word);
    }
    return total;
  }

  /** Calls `visit` for each set bit in ascending slot order; stops early when it returns false. */
  forEach(visit: (slot: number) => boolean | void): void {
    const a = this.words;
    for (let i = 0; i < a.length; i++) {
      let word = a[i]!;
      while (word !== 0) {
        const low = word & -word;
        const slot = (i << 5) + 31 - Math.clz32(low);
        if (visit(slot) === false) return;
        word ^= low;
      }
    }
  }

  /** The set slots, ascending. */
  toArray(): number[] {
    const out: number[] = [];
    this.forEach((slot) => {
      out.push(slot);
    });
    return out;
  }

  /** The lowest set slot, or -1. */
  first(): number {
    const a = this.words;
    for (let i = 0; i < a.length; i++) {
      const word = a[i]!;
      if (word !== 0) return (i << 5) + 31 - Math.clz32(word & -word);
    }
    return -1;
  }
}
