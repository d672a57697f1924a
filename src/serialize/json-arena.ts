/**
 * Encoded JSON remembered per stored document, kept in one preallocated arena instead of a Buffer
 * each. A Buffer per remembered item is external memory: when most reads miss (a venue's events,
 * a random page), evicted Buffers pile up in the old generation and their external bytes force
 * full collections — 100–300 ms event-loop stalls at 100,000 events. The arena is allocated once;
 * items are written one after another around it and the oldest are forgotten as the writing wraps
 * over them (first in, first out). What `get` returns is a view into the arena, valid until the
 * next `get`: writing the next item may overwrite it (a hit on the oldest item, then a miss), so
 * callers copy it at once (jsonEnvelope). Items over `maxItemBytes` are not kept.
 *
 * Keyed like DocumentMemo (memo.ts) by the stored document object and a context key, plus a check that
 * whatever else the encoding depends on (linked records) is still the same.
 *
 * An arena of 0 bytes keeps nothing: `get` encodes every time (caches.ts turns it off where it
 * cannot hit). The arena is allocated on the first `get`, so an app that never lists events does
 * not hold it.
 */
interface Slot<M> {
  start: number;
  length: number;
  key: string;
  meta: M;
  live: boolean;
}

export class JsonArena<D extends object, M> {
  private arena: Buffer | null = null;
  private head = 0;
  private readonly slots = new Map<D, Slot<M>>();
  /** Slots in writing order; `first` is the oldest not yet forgotten. */
  private queue: Array<{ doc: D; slot: Slot<M> }> = [];
  private first = 0;

  constructor(
    private readonly bytes: number,
    private readonly maxItemBytes = Math.floor(bytes / 256),
  ) {}

  get size(): number {
    return this.slots.size;
  }

  /** The encoding remembered for the document, or `encode()`'s result, remembered when it fits. */
  get(doc: D, key: string, meta: M, same: (remembered: M) => boolean, encode: () => string): Buffer {
    if (this.bytes === 0) return Buffer.from(encode());
    const arena = (this.arena ??= Buffer.allocUnsafeSlow(this.bytes));
    const slot = this.slots.get(doc);
    if (slot !== undefined && slot.key === key && same(slot.meta)) return arena.subarray(slot.start, slot.start + slot.length);
    const text = encode();
    const length = Buffer.byteLength(text);
    if (length > this.maxItemBytes) return Buffer.from(text);
    if (this.head + length > arena.length) {
      // Wrap: whatever lies between here and the end is the oldest now.
      while (this.first < this.queue.length && this.queue[this.first]!.slot.start >= this.head) this.forgetOldest();
      this.head = 0;
    }
    while (this.first < this.queue.length && this.queue[this.first]!.slot.start < this.head + length && this.queue[this.first]!.slot.start >= this.head) {
      this.forgetOldest();
    }
    arena.write(text, this.head);
    const written: Slot<M> = { start: this.head, length, key, meta, live: true };
    if (slot !== undefined) slot.live = false;
    this.slots.set(doc, written);
    this.queue.push({ doc, slot: written });
    this.head += length;
    return arena.subarray(written.start, written.start + length);
  }

  private forgetOldest(): void {
    const { doc, slot } = this.queue[this.first]!;
    this.first += 1;
    if (slot.live && this.slots.get(doc) === slot) this.slots.delete(doc);
    slot.live = false;
    // Drop the forgotten prefix now and then, so the queue does not grow without bound.
    if (this.first > 4096 && this.first * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.first);
      this.first = 0;
    }
  }
}
