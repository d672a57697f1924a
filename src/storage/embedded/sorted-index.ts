/**
 * A B-tree-like ordered index over one `IndexDefinition`'s fields: entries (compound key, _id,
 * slot) kept sorted in BSON order in blocks of bounded size, so inserts and deletes cost a binary
 * search plus a short splice, and ranges are found by binary search. Multikey like MongoDB: a
 * document yields one entry per distinct key tuple (array elements expanded, an empty array as its
 * own key, a missing field as null). Ties between equal keys are broken by `_id`, which is what
 * lets an ordered walk serve `sort: [[field, d], ['_id', d]]` directly.
 */
import { type Bitset } from './bitset.js';
import { compareValues, distinctValues, encodeKey, isPlainKey, isPlainObject, keyValuesAt, typeRank } from './bson.js';

/** Blocks split when they grow past this; bulk builds fill them half-way so inserts stay cheap. */
const MAX_BLOCK = 512;
const BULK_BLOCK = 256;

/** A probe value standing for the lowest or highest value of one BSON type bracket. */
export class BracketEdge {
  constructor(
    readonly rank: number,
    readonly end: 'min' | 'max',
  ) {}
}

export type ProbeValue = unknown;

/** IndexCursor.kind values. */
const OTHER_KEY = 0;
const NUMBER_KEY = 1;
const DATE_KEY = 2;

const keyKind = (value: unknown): number => (value instanceof Date ? DATE_KEY : typeof value === 'number' ? NUMBER_KEY : OTHER_KEY);
const numericKey = (value: unknown): number => (value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Number.NaN);

interface Block {
  /** keys[c][i]: component c of entry i. */
  keys: unknown[][];
  ids: number[];
  slots: number[];
}

function compareToProbe(value: unknown, probe: ProbeValue): number {
  if (probe instanceof BracketEdge) {
    const rank = typeRank(value);
    if (rank !== probe.rank) return rank < probe.rank ? -1 : 1;
    return probe.end === 'min' ? 1 : -1;
  }
  return compareValues(value, probe);
}

/** Whether reading `path` in `doc` meets an array (the document makes the index multikey there). */
export function touchesArray(doc: unknown, path: string): boolean {
  let value = doc;
  for (const segment of path.split('.')) {
    if (Array.isArray(value)) return true;
    if (!isPlainObject(value)) return false;
    value = value[segment];
  }
  return Array.isArray(value);
}

/**
 * The `leading` map's key of a value: numbers are their own key (no string to build, -0 as 0);
 * everything else its encoded key, a string, which never equals a number key.
 */
function leadingKey(value: unknown): string | number {
  return typeof value === 'number' ? (value === 0 ? 0 : value) : encodeKey(value);
}

/** A non-empty array of plain keys (strings and numbers other than NaN). */
function plainElements(value: object): boolean {
  return Array.isArray(value) && value.length > 0 && value.every(isPlainKey);
}

export class SortedIndex {
  readonly name: string;
  readonly fields: readonly string[];
  private blocks: Block[] = [];
  /** Entries added but not yet placed in blocks (see `settle`), column by column like a block; counted in `total` and `leading` already. */
  private pending: Block;
  private starts: number[] = [];
  private startsDirty = false;
  private total = 0;
  /** Per field: how many documents hold an array there (a multikey field cannot serve ordered walks). */
  readonly arrayDocs: number[];
  /** Distinct values of the leading field with their entry counts (skip scans, merge prefixes). */
  private readonly leading = new Map<string | number, { value: unknown; count: number }>();

  /**
   * A unique single-field index (a slug): every entry has its own leading value, so counting them
   * per value would only cost a map entry per document; they are read from the index when asked.
   */
  private readonly distinctEntries: boolean;
  /** Fields without a dot, read directly (the common case; `keyValuesAt` handles the rest). */
  private readonly topLevel: boolean;

  constructor(name: string, fields: readonly string[], options: { unique?: boolean } = {}) {
    this.name = name;
    this.fields = fields;
    this.arrayDocs = fields.map(() => 0);
    this.pending = this.emptyColumns();
    this.distinctEntries = options.unique === true && fields.length === 1;
    this.topLevel = fields.every((field) => !field.includes('.'));
  }

  get size(): number {
    return this.total;
  }

  get distinctLeading(): number {
    return this.distinctEntries ? this.total : this.leading.size;
  }

  leadingValues(): unknown[] {
    if (!this.distinctEntries) return [...this.leading.values()].map((entry) => entry.value);
    this.settle();
    const values: unknown[] = [];
    for (const block of this.blocks) for (const value of block.keys[0]!) values.push(value);
    return values;
  }

  /** The distinct key tuples a document contributes. */
  tuplesOf(doc: unknown): unknown[][] {
    // Scalars in every top-level field (no arrays, no embedded documents): one tuple, read directly.
    // One of them may hold a non-empty array of strings and numbers (category, tag and organizer
    // ids): a tuple per distinct element, without the general path's encoded keys.
    if (this.topLevel && isPlainObject(doc)) {
      const tuple: unknown[] = [];
      let arrayAt = -1;
      for (let c = 0; c < this.fields.length; c++) {
        const value = doc[this.fields[c]!];
        if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
          if (arrayAt !== -1 || !plainElements(value)) {
            arrayAt = -2;
            break;
          }
          arrayAt = c;
        }
        tuple.push(value === undefined ? null : value);
      }
      if (arrayAt === -1) return [tuple];
      if (arrayAt >= 0) {
        const elements = tuple[arrayAt] as ReadonlyArray<string | number>;
        const tuples: unknown[][] = [];
        for (let i = 0; i < elements.length; i++) {
          // Strict equality is BSON equality here (no NaN; -0 and 0 are one key).
          if (elements.indexOf(elements[i]!) < i) continue;
          const copy = tuple.slice();
          copy[arrayAt] = elements[i];
          tuples.push(copy);
        }
        return tuples;
      }
    }
    let tuples: unknown[][] = [[]];
    for (const field of this.fields) {
      const values = keyValuesAt(doc, field);
      if (values.length === 1) {
        for (const tuple of tuples) tuple.push(values[0]);
        continue;
      }
      const unique = distinctValues(values);
      tuples = tuples.flatMap((prefix) => unique.map((value) => [...prefix, value]));
    }
    return tuples;
  }

  add(slot: number, id: number, doc: unknown): void {
    this.append(this.pending, slot, id, doc);
  }

  /** Appends a document's entries to `into` (column by column) and counts them in `total`, `leading` and `arrayDocs`. */
  private append(into: Block, slot: number, id: number, doc: unknown): void {
    // Scalars in every top-level field (most documents of most indexes): one entry, its key
    // components pushed as they are read, without a tuple array (a bulk load adds millions).
    if (this.topLevel && isPlainObject(doc) && this.scalarsIn(doc)) {
      for (let c = 0; c < this.fields.length; c++) into.keys[c]!.push(doc[this.fields[c]!] ?? null);
      this.countLeading(doc[this.fields[0]!] ?? null, 1);
      this.total += 1;
      into.ids.push(id);
      into.slots.push(slot);
      return;
    }
    this.countArrays(doc, 1);
    const arrayAt = this.topLevel ? this.plainArrayAt(doc) : -1;
    if (arrayAt >= 0) {
      // One top-level field holds a non-empty array of strings and numbers (category, tag and
      // organizer ids), the others scalars: an entry per distinct element, pushed without a tuple.
      const record = doc as Record<string, unknown>;
      const elements = record[this.fields[arrayAt]!] as ReadonlyArray<string | number>;
      for (let i = 0; i < elements.length; i++) {
        const element = elements[i]!;
        // Strict equality is BSON equality here (no NaN; -0 and 0 are one key).
        if (elements.indexOf(element) < i) continue;
        for (let c = 0; c < this.fields.length; c++) into.keys[c]!.push(c === arrayAt ? element : (record[this.fields[c]!] ?? null));
        this.countLeading(arrayAt === 0 ? element : (record[this.fields[0]!] ?? null), 1);
        this.total += 1;
        into.ids.push(id);
        into.slots.push(slot);
      }
      return;
    }
    for (const tuple of this.tuplesOf(doc)) {
      this.countLeading(tuple[0], 1);
      this.total += 1;
      for (let c = 0; c < tuple.length; c++) into.keys[c]!.push(tuple[c]);
      into.ids.push(id);
      into.slots.push(slot);
    }
  }

  remove(slot: number, id: number, doc: unknown): void {
    this.settle();
    this.countArrays(doc, -1);
    for (const tuple of this.tuplesOf(doc)) this.removeEntry(tuple, id, slot);
  }

  /** Replaces the whole content (ensureIndexes over existing documents): one sort instead of n inserts. */
  build(docs: Iterable<{ slot: number; id: number; doc: unknown }>): void {
    const entries = this.emptyColumns();
    this.arrayDocs.fill(0);
    this.leading.clear();
    this.total = 0;
    this.pending = this.emptyColumns();
    for (const { slot, id, doc } of docs) this.append(entries, slot, id, doc);
    this.fill(entries);
  }

  private emptyColumns(): Block {
    return { keys: this.fields.map(() => []), ids: [], slots: [] };
  }

  /** Sorts entries (held column by column, no object per entry) into fresh blocks, half full so later inserts stay cheap. */
  private fill(entries: Block): void {
    // Sort on primitive stand-ins (Dates as their time): comparing Dates in place costs a pointer
    // chase per comparison, which dominates sorting a million entries.
    const width = this.fields.length;
    const count = entries.ids.length;
    const ranks = new Int8Array(count * width);
    const numbers = new Float64Array(count * width);
    for (let c = 0; c < width; c++) {
      const column = entries.keys[c]!;
      for (let e = 0; e < count; e++) {
        const value = column[e];
        ranks[e * width + c] = typeRank(value);
        numbers[e * width + c] = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Number.NaN;
      }
    }
    const ids = entries.ids;
    const order = Array.from({ length: count }, (_, e) => e).sort((a, b) => {
      for (let c = 0; c < width; c++) {
        const ra = ranks[a * width + c]!;
        const rb = ranks[b * width + c]!;
        if (ra !== rb) return ra - rb;
        const na = numbers[a * width + c]!;
        const nb = numbers[b * width + c]!;
        // NaN stands for "not a plain number or time" (and for NaN itself): compare the values.
        const order = na === na && nb === nb ? na - nb : compareValues(entries.keys[c]![a], entries.keys[c]![b]);
        if (order !== 0) return order;
      }
      return ids[a]! - ids[b]!;
    });
    this.blocks = [];
    for (let start = 0; start < count; start += BULK_BLOCK) {
      const chunk = order.slice(start, start + BULK_BLOCK);
      this.blocks.push({
        keys: entries.keys.map((column) => chunk.map((e) => column[e])),
        ids: chunk.map((e) => ids[e]!),
        slots: chunk.map((e) => entries.slots[e]!),
      });
    }
    this.startsDirty = true;
  }

  /**
   * Places the entries added since the last read. Inserts are deferred to here so a bulk load pays
   * one sort instead of a binary search and a splice per entry: many pending entries (at least a
   * sixteenth of the placed ones) are merged by re-sorting everything — the placed entries are one
   * sorted run, which the engine's merge sort takes in linear time — and a few are inserted one by one.
   */
  private settle(): void {
    const pending = this.pending;
    const added = pending.ids.length;
    if (added === 0) return;
    this.pending = this.emptyColumns();
    const placed = this.total - added;
    if (added * 16 < placed) {
      for (let e = 0; e < added; e++) this.place(pending.keys.map((column) => column[e]), pending.ids[e]!, pending.slots[e]!);
      return;
    }
    const entries = this.emptyColumns();
    for (const block of [...this.blocks, pending]) {
      for (let c = 0; c < block.keys.length; c++) for (const value of block.keys[c]!) entries.keys[c]!.push(value);
      for (const id of block.ids) entries.ids.push(id);
      for (const slot of block.slots) entries.slots.push(slot);
    }
    this.fill(entries);
  }

  /**
   * The field holding the document's one array when that array is non-empty and of strings and
   * numbers and every other indexed field holds a scalar; -1 otherwise (tuplesOf decides then).
   */
  private plainArrayAt(doc: unknown): number {
    if (!isPlainObject(doc)) return -1;
    let arrayAt = -1;
    for (let c = 0; c < this.fields.length; c++) {
      const value = doc[this.fields[c]!];
      if (typeof value !== 'object' || value === null || value instanceof Date) continue;
      if (arrayAt !== -1 || !plainElements(value)) return -1;
      arrayAt = c;
    }
    return arrayAt;
  }

  /** Whether every indexed top-level field holds a scalar (or nothing): no array, no embedded document. */
  private scalarsIn(doc: Record<string, unknown>): boolean {
    for (let c = 0; c < this.fields.length; c++) {
      const value = doc[this.fields[c]!];
      if (typeof value === 'object' && value !== null && !(value instanceof Date)) return false;
    }
    return true;
  }

  private countArrays(doc: unknown, delta: number): void {
    for (let c = 0; c < this.fields.length; c++) {
      const field = this.fields[c]!;
      if (this.topLevel ? isPlainObject(doc) && Array.isArray(doc[field]) : touchesArray(doc, field)) this.arrayDocs[c]! += delta;
    }
  }

  private countLeading(value: unknown, delta: number): void {
    if (this.distinctEntries) return;
    const key = leadingKey(value);
    const entry = this.leading.get(key);
    if (entry === undefined) {
      if (delta > 0) this.leading.set(key, { value, count: delta });
      return;
    }
    entry.count += delta;
    if (entry.count <= 0) this.leading.delete(key);
  }

  private compareEntry(block: Block, i: number, tuple: unknown[], id: number): number {
    for (let c = 0; c < tuple.length; c++) {
      const order = compareValues(block.keys[c]![i], tuple[c]);
      if (order !== 0) return order;
    }
    return block.ids[i]! - id;
  }

  /** First position in `block` whose entry is >= (tuple, id). */
  private lowerInBlock(block: Block, tuple: unknown[], id: number): number {
    let lo = 0;
    let hi = block.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareEntry(block, mid, tuple, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First block whose last entry is >= (tuple, id); blocks.length when none. */
  private blockFor(tuple: unknown[], id: number): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.blocks[mid]!;
      if (this.compareEntry(block, block.ids.length - 1, tuple, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Inserts one entry into its block (counted already by `add`). */
  private place(tuple: unknown[], id: number, slot: number): void {
    this.startsDirty = true;
    if (this.blocks.length === 0) {
      this.blocks.push({ keys: tuple.map((value) => [value]), ids: [id], slots: [slot] });
      return;
    }
    const b = Math.min(this.blockFor(tuple, id), this.blocks.length - 1);
    const block = this.blocks[b]!;
    const at = this.lowerInBlock(block, tuple, id);
    for (let c = 0; c < tuple.length; c++) block.keys[c]!.splice(at, 0, tuple[c]);
    block.ids.splice(at, 0, id);
    block.slots.splice(at, 0, slot);
    if (block.ids.length > MAX_BLOCK) {
      const half = block.ids.length >>> 1;
      const right: Block = {
        keys: block.keys.map((column) => column.splice(half)),
        ids: block.ids.splice(half),
        slots: block.slots.splice(half),
      };
      this.blocks.splice(b + 1, 0, right);
    }
  }

  private removeEntry(tuple: unknown[], id: number, slot: number): void {
    const b = this.blockFor(tuple, id);
    const block = this.blocks[b];
    if (block === undefined) return;
    const at = this.lowerInBlock(block, tuple, id);
    if (at >= block.ids.length || block.slots[at] !== slot || this.compareEntry(block, at, tuple, id) !== 0) return;
    for (const column of block.keys) column.splice(at, 1);
    block.ids.splice(at, 1);
    block.slots.splice(at, 1);
    if (block.ids.length === 0) this.blocks.splice(b, 1);
    this.countLeading(tuple[0], -1);
    this.total -= 1;
    this.startsDirty = true;
  }

  private blockStarts(): number[] {
    if (this.startsDirty) {
      const starts = new Array<number>(this.blocks.length);
      let position = 0;
      for (let b = 0; b < this.blocks.length; b++) {
        starts[b] = position;
        position += this.blocks[b]!.ids.length;
      }
      this.starts = starts;
      this.startsDirty = false;
    }
    return this.starts;
  }

  /** Compares an entry's first `probe.length` components with the probe values. */
  private compareToProbes(block: Block, i: number, probe: readonly ProbeValue[]): number {
    for (let c = 0; c < probe.length; c++) {
      const order = compareToProbe(block.keys[c]![i], probe[c]);
      if (order !== 0) return order;
    }
    return 0;
  }

  /**
   * The position of the first entry whose leading components sort after the probe (`after`) or
   * not before it (`!after`). Probe values may be BracketEdges.
   */
  seek(probe: readonly ProbeValue[], after: boolean): number {
    this.settle();
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.blocks[mid]!;
      if (this.goesLeft(block, block.ids.length - 1, probe, after)) hi = mid;
      else lo = mid + 1;
    }
    if (lo === this.blocks.length) return this.total;
    const block = this.blocks[lo]!;
    let left = 0;
    let right = block.ids.length;
    while (left < right) {
      const mid = (left + right) >>> 1;
      if (this.goesLeft(block, mid, probe, after)) right = mid;
      else left = mid + 1;
    }
    return this.blockStarts()[lo]! + left;
  }

  /** Whether the entry sorts after the probe (`after`) or not before it. A method, not a closure per seek. */
  private goesLeft(block: Block, i: number, probe: readonly ProbeValue[], after: boolean): boolean {
    let order: number;
    const first = probe[0];
    const key = block.keys[0]![i];
    // One numeric component against a numeric key (ids: venue, organizer, category, tag) compares
    // as plain numbers (BSON order within the number bracket; NaN and other types take the full path).
    if (probe.length === 1 && typeof first === 'number' && typeof key === 'number' && first === first && key === key) order = key - first;
    else order = this.compareToProbes(block, i, probe);
    return after ? order > 0 : order >= 0;
  }

  /** Block index and offset of a position (position < size). */
  private locate(position: number): [number, number] {
    this.settle();
    const starts = this.blockStarts();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= position) lo = mid;
      else hi = mid - 1;
    }
    return [lo, position - starts[lo]!];
  }

  /** Appends the slots at positions [from, to) to `out`. */
  collect(from: number, to: number, out: number[]): void {
    if (from >= to) return;
    let [b, i] = this.locate(from);
    let remaining = to - from;
    while (remaining > 0 && b < this.blocks.length) {
      const slots = this.blocks[b]!.slots;
      const end = Math.min(slots.length, i + remaining);
      for (let k = i; k < end; k++) out.push(slots[k]!);
      remaining -= end - i;
      b += 1;
      i = 0;
    }
  }

  /** Sets (or clears) the bits of the slots at positions [from, to); returns how many bits changed. */
  mark(from: number, to: number, bits: Bitset, value: boolean): number {
    if (from >= to) return 0;
    let [b, i] = this.locate(from);
    let remaining = to - from;
    let changed = 0;
    while (remaining > 0 && b < this.blocks.length) {
      const slots = this.blocks[b]!.slots;
      const end = Math.min(slots.length, i + remaining);
      for (let k = i; k < end; k++) {
        const slot = slots[k]!;
        if (bits.has(slot) === value) continue;
        bits.assign(slot, value);
        changed += 1;
      }
      remaining -= end - i;
      b += 1;
      i = 0;
    }
    return changed;
  }

  /** How many slots at positions [from, to) are set in `bits` (at most 1 with `firstOnly`). */
  countMarked(from: number, to: number, bits: Bitset, firstOnly: boolean): number {
    if (from >= to) return 0;
    let [b, i] = this.locate(from);
    let remaining = to - from;
    let count = 0;
    while (remaining > 0 && b < this.blocks.length) {
      const slots = this.blocks[b]!.slots;
      const end = Math.min(slots.length, i + remaining);
      for (let k = i; k < end; k++) {
        if (bits.has(slots[k]!)) {
          count += 1;
          if (firstOnly) return count;
        }
      }
      remaining -= end - i;
      b += 1;
      i = 0;
    }
    return count;
  }

  /**
   * Every run of entries with one leading value (BSON equality), in index order: the value and how
   * many of the run's slots are set in `bits` (0 included). One pass over the whole index, for
   * counting most values at once (a seek pair per value costs more past a few thousand values).
   */
  countMarkedRuns(bits: Bitset, visit: (value: unknown, count: number) => void): void {
    this.settle();
    let current: unknown;
    let count = 0;
    let started = false;
    for (const block of this.blocks) {
      const keys = block.keys[0]!;
      const slots = block.slots;
      for (let i = 0; i < slots.length; i++) {
        const value = keys[i];
        if (!started || (value !== current && compareValues(value, current) !== 0)) {
          if (started) visit(current, count);
          current = value;
          count = 0;
          started = true;
        }
        if (bits.has(slots[i]!)) count += 1;
      }
    }
    if (started) visit(current, count);
  }

  /** The number of entries whose leading field equals `value` (BSON equality). */
  leadingCount(value: unknown): number {
    if (this.distinctEntries) return this.seek([value], true) - this.seek([value], false);
    return this.leading.get(leadingKey(value))?.count ?? 0;
  }

  /** A cursor over the entries at positions [from, to) whose slots are in `matches`, ascending or descending. */
  cursor(from: number, to: number, direction: 1 | -1, component: number, matches: Bitset): IndexCursor {
    this.settle();
    return new IndexCursor(this.blocks, from < to ? this.locate(direction === 1 ? from : to - 1) : null, to - from, direction, component, matches);
  }
}

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
