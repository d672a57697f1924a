/**
 * The bitsets one read uses for intermediate results, taken back and reused once the read is over.
 * A bitset's words are an ArrayBuffer, memory outside the JavaScript heap: fresh ones per request
 * (125 KB each at a million documents) add up to the external-memory growth that makes V8 start a
 * full collection — a pass over the whole multi-gigabyte heap — every few seconds under load.
 */
import { Bitset } from './bitset.js';

/** Bitsets kept for reuse between reads (each is slots/8 bytes). */
const MAX_SPARE_SCRATCH = 16;

export class ScratchBits {
  /**
   * Bitsets handed out as scratch during the current read, those of clauses it did not cache, and
   * those the clause cache dropped during it: each reused once the read is over (a set, so a bitset
   * noted twice is still handed out once).
   */
  private readonly inUse = new Set<Bitset>();
  /** Bitsets nothing refers to any more, to reuse. */
  private readonly spare: Bitset[] = [];
  private depth = 0;

  /** `live` is the collection's live-slot bitset: its length is the size every bitset here gets. */
  constructor(private readonly live: Bitset) {}

  /**
   * Runs `read` (which evaluates filters and consumes their MatchSets) and then takes back the
   * bitsets it used or the cache let go of.
   */
  scoped<T>(read: () => T): T {
    this.depth += 1;
    try {
      return read();
    } finally {
      this.depth -= 1;
      // A nested scope leaves the outer read's scratch alone.
      if (this.depth === 0) {
        for (const bits of this.inUse) if (this.spare.length < MAX_SPARE_SCRATCH) this.spare.push(bits);
        this.inUse.clear();
      }
    }
  }

  /**
   * A bitset the clause cache no longer holds (evicted or replaced). The read running now may
   * still read it — it can have served a clause before another clause's caching evicted it — so
   * it is reused only once that read is over.
   */
  release(bits: Bitset): void {
    if (this.depth > 0) this.inUse.add(bits);
    else if (this.spare.length < MAX_SPARE_SCRATCH) this.spare.push(bits);
  }

  /** A bitset for this read only (a copy of `from` if given): never cache it or keep it past `scoped`. */
  scratch(from?: Bitset): Bitset {
    const bits = from === undefined ? this.emptyBits() : this.sparedOrNew(false).copyFrom(from);
    this.inUse.add(bits);
    return bits;
  }

  /** Takes back, once the current read is over, a bitset handed out by `emptyBits` or `copyOf`. */
  hold(bits: Bitset): void {
    this.inUse.add(bits);
  }

  /** Words of a bitset of the collection's size. */
  get words(): number {
    return this.live.words.length;
  }

  /** An empty bitset of the collection's size, which the caller owns (it may cache it). */
  emptyBits(): Bitset {
    return this.sparedOrNew(true);
  }

  /** A copy of `bits` that the caller owns. */
  copyOf(bits: Bitset): Bitset {
    return this.sparedOrNew(false).copyFrom(bits);
  }

  /** A spare bitset large enough (cleared when asked), else a new one. */
  private sparedOrNew(clear: boolean): Bitset {
    while (this.spare.length > 0) {
      const candidate = this.spare.pop()!;
      if (candidate.words.length >= this.words) return clear ? candidate.clear() : candidate;
    }
    return new Bitset(new Uint32Array(this.words));
  }
}
