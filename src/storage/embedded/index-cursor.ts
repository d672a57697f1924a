/**
 * Ordered walks over a SortedIndex's blocks, for merges: a cursor over the entries of a position
 * range that a query matches, and the page such walks fill.
 */
import { type Bitset } from './bitset.js';
import { type Block } from './index-blocks.js';

/** IndexCursor.kind values. */
const OTHER_KEY = 0;
const NUMBER_KEY = 1;
const DATE_KEY = 2;

const keyKind = (value: unknown): number => (value instanceof Date ? DATE_KEY : typeof value === 'number' ? NUMBER_KEY : OTHER_KEY);
const numericKey = (value: unknown): number => (value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Number.NaN);

/**
 * Walks a position range of a SortedIndex over the entries whose slot is in `matches` (those of
 * a query), exposing one key component, the _id and the slot. Passing over the other
 * entries reads only their slots: a key is read (a pointer to a Date, a likely cache miss on a
 * large store) only when a merge compares it.
 */
export class IndexCursor {
  private block = 0;
  private offset = 0;
  private remaining: number;
  done: boolean;
  id = 0;
  slot = 0;

  constructor(
    private readonly blocks: Block[],
    start: [number, number] | null,
    count: number,
    private readonly direction: 1 | -1,
    private readonly component: number,
    private readonly matches: Bitset,
  ) {
    this.remaining = count;
    this.done = start === null || count <= 0;
    if (start !== null) [this.block, this.offset] = start;
    if (this.done) return;
    this.load();
    if (!matches.has(this.slot)) this.next();
  }

  /** The key component of the current entry. */
  get value(): unknown {
    return this.blocks[this.block]!.keys[this.component]![this.offset];
  }

  /** The value as a number when it is a Date (its time) or a number, else NaN: merges compare these first. */
  get key(): number {
    return numericKey(this.value);
  }

  /** Whether `key` is a Date's time or a number (they never compare equal in BSON order), or neither. */
  get kind(): number {
    return keyKind(this.value);
  }

  private load(): void {
    const block = this.blocks[this.block]!;
    this.id = block.ids[this.offset]!;
    this.slot = block.slots[this.offset]!;
  }

  /** On to the next matching entry (or done). */
  next(): void {
    do {
      this.remaining -= 1;
      if (this.remaining <= 0) {
        this.done = true;
        return;
      }
      if (this.direction === 1) {
        this.offset += 1;
        if (this.offset >= this.blocks[this.block]!.ids.length) {
          this.block += 1;
          this.offset = 0;
        }
      } else {
        this.offset -= 1;
        if (this.offset < 0) {
          this.block -= 1;
          this.offset = this.blocks[this.block]!.ids.length - 1;
        }
      }
      this.load();
    } while (!this.matches.has(this.slot));
  }

  /**
   * Counts the current entry into `page` (collected once past `skip`) and moves on, for as long as
   * the entries come before `bound` in the walk's direction — the current entry of the next run of
   * a merge; null when this is the last run — and the page is not full. Stops at a key that is not
   * a number or a Date of the bound's kind (numbers come before Dates, other types need the full
   * BSON order): the merge compares that one itself. Returns how many entries it counted.
   */
  readWhile(bound: IndexCursor | null, page: PageState): number {
    let boundKey = Number.NaN;
    let boundKind = OTHER_KEY;
    if (bound !== null) {
      boundKind = bound.kind;
      boundKey = bound.key;
      if (boundKind === OTHER_KEY || boundKey !== boundKey) return 0;
    }
    const ascending = this.direction === 1;
    let read = 0;
    while (!this.done && page.position < page.end) {
      if (bound !== null) {
        const value = this.value;
        if (keyKind(value) !== boundKind) break;
        const key = numericKey(value);
        if (key !== key) break;
        const c = key - boundKey || this.id - bound.id;
        if (ascending ? c >= 0 : c <= 0) break;
      }
      page.count(this.id, this.slot);
      read += 1;
      this.next();
    }
    return read;
  }
}

/** A page being read by an ordered walk: matches before `skip` are counted, then collected until `end`. */
export class PageState {
  position = 0;
  readonly out: number[] = [];
  private lastId: number | null = null;

  constructor(
    private readonly skip: number,
    readonly end: number,
  ) {}

  count(id: number, slot: number): void {
    // A multikey leading field puts one document in several runs, always at the same (key, _id).
    if (id === this.lastId) return;
    this.lastId = id;
    if (this.position >= this.skip) this.out.push(slot);
    this.position += 1;
  }
}
