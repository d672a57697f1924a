/**
 * A B-tree-like ordered index over one `IndexDefinition`'s fields: entries (compound key, _id,
 * slot) kept sorted in BSON order in blocks of bounded size, so inserts and deletes cost a binary
 * search plus a short splice, and ranges are found by binary search. Multikey like MongoDB: a
 * document yields one entry per distinct key tuple (array elements expanded, an empty array as its
 * own key, a missing field as null). Ties between equal keys are broken by `_id`, which is what
 * lets an ordered walk serve `sort: [[field, d], ['_id', d]]` directly.
 *
 * This class keeps the entries in step with the documents (their key tuples, deferred placement,
 * the counts planners read); the blocks themselves are index-blocks.ts, seeks and range scans over
 * them index-scans.ts, ordered walks for merges index-cursor.ts.
 */
import { type Bitset } from './bitset.js';
import { distinctValues, encodeKey, isPlainKey, isPlainObject, keyValuesAt } from './bson.js';
import { type Block, blockStarts, deleteEntry, emptyColumns, insertEntry, locate, sortIntoBlocks } from './index-blocks.js';
import { IndexCursor } from './index-cursor.js';
import { blockAtProbe, collectSlots, countMarkedRuns, countMarkedSlots, markSlots, offsetAtProbe, type ProbeValue } from './index-scans.js';

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
    return emptyColumns(this.fields.length);
  }

  /** Sorts entries into fresh blocks (see `sortIntoBlocks`). */
  private fill(entries: Block): void {
    this.blocks = sortIntoBlocks(entries, this.fields.length);
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
      for (let e = 0; e < added; e++)
        this.place(
          pending.keys.map((column) => column[e]),
          pending.ids[e]!,
          pending.slots[e]!,
        );
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

  /** Inserts one entry into its block (counted already by `add`). */
  private place(tuple: unknown[], id: number, slot: number): void {
    this.startsDirty = true;
    insertEntry(this.blocks, tuple, id, slot);
  }

  private removeEntry(tuple: unknown[], id: number, slot: number): void {
    if (!deleteEntry(this.blocks, tuple, id, slot)) return;
    this.countLeading(tuple[0], -1);
    this.total -= 1;
    this.startsDirty = true;
  }

  private blockStarts(): number[] {
    if (this.startsDirty) {
      this.starts = blockStarts(this.blocks);
      this.startsDirty = false;
    }
    return this.starts;
  }

  /**
   * The position of the first entry whose leading components sort after the probe (`after`) or
   * not before it (`!after`). Probe values may be BracketEdges.
   */
  seek(probe: readonly ProbeValue[], after: boolean): number {
    this.settle();
    const b = blockAtProbe(this.blocks, probe, after);
    if (b === this.blocks.length) return this.total;
    return this.blockStarts()[b]! + offsetAtProbe(this.blocks[b]!, probe, after);
  }

  /** Block index and offset of a position (position < size). */
  private locate(position: number): [number, number] {
    this.settle();
    return locate(this.blockStarts(), position);
  }

  /** Appends the slots at positions [from, to) to `out`. */
  collect(from: number, to: number, out: number[]): void {
    if (from >= to) return;
    const [b, i] = this.locate(from);
    collectSlots(this.blocks, b, i, to - from, out);
  }

  /** Sets (or clears) the bits of the slots at positions [from, to); returns how many bits changed. */
  mark(from: number, to: number, bits: Bitset, value: boolean): number {
    if (from >= to) return 0;
    const [b, i] = this.locate(from);
    return markSlots(this.blocks, b, i, to - from, bits, value);
  }

  /** How many slots at positions [from, to) are set in `bits` (at most 1 with `firstOnly`). */
  countMarked(from: number, to: number, bits: Bitset, firstOnly: boolean): number {
    if (from >= to) return 0;
    const [b, i] = this.locate(from);
    return countMarkedSlots(this.blocks, b, i, to - from, bits, firstOnly);
  }

  /**
   * Every run of entries with one leading value (BSON equality), in index order: the value and how
   * many of the run's slots are set in `bits` (0 included). One pass over the whole index, for
   * counting most values at once (a seek pair per value costs more past a few thousand values).
   */
  countMarkedRuns(bits: Bitset, visit: (value: unknown, count: number) => void): void {
    this.settle();
    countMarkedRuns(this.blocks, bits, visit);
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
