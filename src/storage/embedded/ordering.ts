/**
 * Sorting and paging of a match set. When a sorted index orders by the sort key (and `_id` breaks
 * ties), the page is read by walking that index in order — merging its runs when the key comes
 * after a leading field — and stops as soon as the page is full; otherwise the matches are ranked
 * by MongoDB's sort rules, keeping only the first skip+limit when that is a small part of them.
 */
import { type Scalar, type Sort } from '../port.js';
import { compareValues, distinctValues, keyValuesAt, typeRank } from './bson.js';
import { type DateColumn } from './date-column.js';
import { type IndexCursor, PageState } from './index-cursor.js';
import { BracketEdge } from './index-scans.js';
import { type MatchSet } from './match-set.js';
import { type Restriction } from './planner.js';
import { type StoredDoc } from './predicate.js';
import { type SortedIndex } from './sorted-index.js';

export interface OrderingHost {
  readonly docs: ReadonlyArray<StoredDoc | undefined>;
  readonly sortedIndexes: readonly SortedIndex[];
  /** The Date column of a top-level field, kept current write by write (see rankByTime). */
  dateColumn?(field: string): DateColumn | undefined;
  /** The `_id` of the document in each live slot, read without reaching the document (rankByTime). */
  readonly ids?: readonly unknown[];
}

export interface PageRequest {
  sort: Sort;
  skip: number;
  /** 0: no limit. */
  limit: number;
}

/** Leading values enumerated for a merge when the filter does not pin the leading field. */
const MAX_MERGE_RUNS = 64;
const COST = { step: 25, key: 30, compare: 25 } as const;

/** The slots of the requested page, in order. */
export function pageSlots(host: OrderingHost, matches: MatchSet, request: PageRequest, restrictions: readonly Restriction[]): number[] {
  const { sort, skip, limit } = request;
  const end = limit === 0 ? Infinity : skip + limit;
  if (matches.size === 0 || skip >= matches.size) return [];
  if (sort.length === 0) {
    const out: number[] = [];
    let position = 0;
    matches.forEach((slot) => {
      if (position++ >= skip) out.push(slot);
      return position < end;
    });
    return out;
  }
  const wanted = Math.min(end, matches.size);
  const walk = chosenWalk(host, matches.size, wanted, sort, restrictions);
  if (walk !== null) return walk.read(matches, skip, wanted);
  return rankByTime(host, matches, sort, skip, wanted) ?? rankSlots(host.docs, matches, sort, skip, wanted);
}

/** The ordered index walk a page of `wanted` out of `size` matches takes, or null: sorted in memory. */
function chosenWalk(host: OrderingHost, size: number, wanted: number, sort: Sort, restrictions: readonly Restriction[]) {
  const walk = orderedWalk(host, sort, restrictions);
  if (walk === null) return null;
  const rankCost = size * COST.key + size * Math.log2(Math.min(wanted, size) + 1) * COST.compare;
  // Matches are spread over the walked entries: reaching the last wanted one takes about this many
  // steps, each dearer the more runs are merged.
  const steps = Math.min(walk.universe, (wanted * walk.universe) / size);
  return steps * COST.step * Math.sqrt(walk.runs.length) <= rankCost ? walk : null;
}

/** How `pageSlots` would order this page (explain): the index it walks, or a sort in memory. */
export function orderPlan(
  host: OrderingHost,
  matches: MatchSet,
  request: PageRequest,
  restrictions: readonly Restriction[],
): { sort: 'index' | 'memory' | 'none'; index?: string } {
  if (request.sort.length === 0) return { sort: 'none' };
  if (matches.size === 0) return { sort: 'index' };
  const end = request.limit === 0 ? Infinity : request.skip + request.limit;
  const walk = chosenWalk(host, matches.size, Math.min(end, matches.size), request.sort, restrictions);
  return walk === null ? { sort: 'memory' } : { sort: 'index', index: walk.index };
}

/** MongoDB's sort key of a document: per key, an array's smallest element ascending and largest descending. */
function sortKey(doc: StoredDoc, field: string, direction: 1 | -1): unknown {
  if (!field.includes('.')) {
    const value = Object.hasOwn(doc, field) ? doc[field] : undefined;
    if (!Array.isArray(value)) return value === undefined ? null : value;
  }
  const values = keyValuesAt(doc, field);
  let chosen = values[0];
  for (let i = 1; i < values.length; i++) {
    const c = compareValues(values[i], chosen);
    if (direction === 1 ? c < 0 : c > 0) chosen = values[i];
  }
  return chosen;
}

/** A match keyed by a time (epoch ms) and a tie-break (its `_id`, or its slot). */
interface Timed {
  slot: number;
  time: number;
  tie: number;
}

/**
 * rankSlots for a sort on one top-level field (then optionally `_id`) when every match holds one
 * valid Date there: the times are read from the field's Date column, one number per slot, instead
 * of a sort key per match from its document through the general comparison — what an in-memory
 * sort of a search's or a category's thousands of matches spent most of its time on. Dates compare
 * by their time, as compareValues orders them, so the order is the same. Null as soon as a match
 * holds anything else there (missing, another type, an array, an invalid Date): the general rules
 * apply.
 */
function rankByTime(host: OrderingHost, matches: MatchSet, sort: Sort, skip: number, end: number): number[] | null {
  const [first, second] = sort;
  if (first === undefined || sort.length > 2 || first[0] === '_id' || first[0].includes('.')) return null;
  if (second !== undefined && second[0] !== '_id') return null;
  // A column is built on first use and kept current by every write: asked for only when the
  // first match holds a Date there, so a sort on a field of another type never builds one.
  const field = first[0];
  let firstValue: unknown;
  matches.forEach((slot) => {
    const doc = host.docs[slot];
    firstValue = doc !== undefined && Object.hasOwn(doc, field) ? doc[field] : undefined;
    return false;
  });
  if (!(firstValue instanceof Date)) return null;
  const column = host.dateColumn?.(field);
  if (column === undefined) return null;
  const direction = first[1];
  const tieDirection = second === undefined ? 1 : second[1];
  const byId = second !== undefined;
  const times = column.values;
  const docs = host.docs;
  const ids = host.ids;
  const compare = (a: Timed, b: Timed): number => (a.time - b.time) * direction || (a.tie - b.tie) * tieDirection || a.slot - b.slot;
  /** Keys `slot` into `into`; false when its value is no single valid Date (or its `_id` no number). */
  const key = (slot: number, into: Timed): boolean => {
    const time = slot < times.length ? times[slot]! : Number.NaN;
    if (time !== time || column.arrays.has(slot)) return false;
    into.slot = slot;
    into.time = time;
    if (byId) {
      const id = ids !== undefined ? ids[slot] : docs[slot]!._id;
      if (typeof id !== 'number' || id !== id) return false;
      into.tie = id;
    } else into.tie = slot;
    return true;
  };
  let usable = true;
  if (end * 4 >= matches.size) {
    const keyed: Timed[] = [];
    matches.forEach((slot) => {
      const entry: Timed = { slot: 0, time: 0, tie: 0 };
      usable = key(slot, entry);
      keyed.push(entry);
      return usable;
    });
    if (!usable) return null;
    return keyed
      .sort(compare)
      .slice(skip, end)
      .map((k) => k.slot);
  }
  // Only the first `end` matter: a max-heap of that size, as in rankSlots.
  const heap: Timed[] = [];
  const swap = (i: number, j: number): void => {
    [heap[i], heap[j]] = [heap[j]!, heap[i]!];
  };
  const scratch: Timed = { slot: 0, time: 0, tie: 0 };
  matches.forEach((slot) => {
    usable = key(slot, scratch);
    if (!usable) return false;
    if (heap.length < end) {
      heap.push({ ...scratch });
      for (let i = heap.length - 1; i > 0 && compare(heap[i]!, heap[(i - 1) >> 1]!) > 0; i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    } else if (compare(scratch, heap[0]!) < 0) {
      Object.assign(heap[0]!, scratch);
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        let largest = i;
        if (left < heap.length && compare(heap[left]!, heap[largest]!) > 0) largest = left;
        if (left + 1 < heap.length && compare(heap[left + 1]!, heap[largest]!) > 0) largest = left + 1;
        if (largest === i) break;
        swap(i, largest);
        i = largest;
      }
    }
    return true;
  });
  if (!usable) return null;
  return heap
    .sort(compare)
    .slice(skip)
    .map((k) => k.slot);
}

/** Ranks the matches by the sort keys, ties in natural (slot) order, and returns positions [skip, end). */
function rankSlots(docs: OrderingHost['docs'], matches: MatchSet, sort: Sort, skip: number, end: number): number[] {
  type Keyed = { slot: number; keys: unknown[] };
  const compare = (a: Keyed, b: Keyed): number => {
    for (let i = 0; i < sort.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]);
      if (c !== 0) return c * sort[i]![1];
    }
    return a.slot - b.slot;
  };
  const keysOf = (doc: StoredDoc, into: unknown[]): unknown[] => {
    for (let i = 0; i < sort.length; i++) into[i] = sortKey(doc, sort[i]![0], sort[i]![1]);
    return into;
  };
  if (end * 4 >= matches.size) {
    const keyed: Keyed[] = [];
    matches.forEach((slot) => void keyed.push({ slot, keys: keysOf(docs[slot]!, []) }));
    return keyed
      .sort(compare)
      .slice(skip, end)
      .map((k) => k.slot);
  }
  // Only the first `end` matter: keep them in a max-heap of that size. A match is keyed into a
  // scratch entry and copied only when it enters the heap (the evicted entry is reused), so a
  // page out of many thousands of matches allocates for the page, not for every match.
  const heap: Keyed[] = [];
  const up = (i: number): void => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (compare(heap[i]!, heap[parent]!) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const down = (i: number): void => {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let largest = i;
      if (left < heap.length && compare(heap[left]!, heap[largest]!) > 0) largest = left;
      if (right < heap.length && compare(heap[right]!, heap[largest]!) > 0) largest = right;
      if (largest === i) return;
      [heap[i], heap[largest]] = [heap[largest]!, heap[i]!];
      i = largest;
    }
  };
  const scratch: Keyed = { slot: 0, keys: new Array<unknown>(sort.length) };
  matches.forEach((slot) => {
    scratch.slot = slot;
    keysOf(docs[slot]!, scratch.keys);
    if (heap.length < end) {
      heap.push({ slot, keys: [...scratch.keys] });
      up(heap.length - 1);
    } else if (compare(scratch, heap[0]!) < 0) {
      const evicted = heap[0]!;
      evicted.slot = slot;
      for (let i = 0; i < sort.length; i++) evicted.keys[i] = scratch.keys[i];
      down(0);
    }
  });
  return heap
    .sort(compare)
    .slice(skip)
    .map((k) => k.slot);
}

interface Walk {
  /** The index walked (explain). */
  index: string;
  runs: Array<readonly [from: number, to: number]>;
  universe: number;
  read(matches: MatchSet, skip: number, end: number): number[];
}

/**
 * An ordered walk serving `sort`: an index whose key has the sort field at position j, followed by
 * nothing or by `_id` (ties are broken by _id inside every index), the sort field holding no array
 * (MongoDB sorts arrays by their smallest/largest element), and the fields before it pinned to a
 * few values (runs merged in key order).
 */
function orderedWalk(host: OrderingHost, sort: Sort, restrictions: readonly Restriction[]): Walk | null {
  const [first, second] = sort;
  if (first === undefined || sort.length > 2) return null;
  const [field, direction] = first;
  if (field === '_id' || field.includes('.')) return null;
  // Without an _id tie-break, ties keep natural order, which no index order reproduces.
  if (second === undefined || second[0] !== '_id' || second[1] !== direction) return null;

  // Choose by the entries each candidate holds (no seeks), then narrow only the chosen one's runs.
  let best: { index: SortedIndex; j: number; prefixes: unknown[][]; entries: number } | null = null;
  for (const index of host.sortedIndexes) {
    const j = index.fields.indexOf(field);
    if (j < 0 || j > 1 || index.arrayDocs[j] !== 0) continue;
    const rest = index.fields.slice(j + 1);
    if (!(rest.length === 0 || (rest.length === 1 && rest[0] === '_id'))) continue;
    let prefixes: unknown[][] = [[]];
    let entries = index.size;
    if (j === 1) {
      const leading = index.fields[0]!;
      const pinned = restrictions.find((r): r is { field: string; values: Scalar[] } => r.field === leading && 'values' in r);
      if (pinned !== undefined) {
        prefixes = distinctValues(pinned.values).map((value) => [value]);
        entries = prefixes.reduce((sum, [value]) => sum + index.leadingCount(value), 0);
      } else if (index.distinctLeading <= MAX_MERGE_RUNS) {
        prefixes = index.leadingValues().map((value) => [value]);
      } else continue;
    }
    if (best === null || entries < best.entries) best = { index, j, prefixes, entries };
  }
  if (best === null) return null;
  const { index, j, prefixes } = best;
  const runs = prefixes.map((prefix) => spanOf(index, prefix, field, restrictions));
  const universe = runs.reduce((sum, [from, to]) => sum + Math.max(0, to - from), 0);
  return { index: index.name, runs, universe, read: (matches, skip, end) => readRuns(index, j, runs, direction, matches, skip, end) };
}

/** The positions of one run, narrowed by the range restrictions on the sort field. */
function spanOf(index: SortedIndex, prefix: unknown[], field: string, restrictions: readonly Restriction[]): readonly [number, number] {
  let from = index.seek(prefix, false);
  let to = index.seek(prefix, true);
  for (const r of restrictions) {
    if (r.field !== field || 'values' in r) continue;
    // Every match lies in the restriction's type bracket, so the bracket edges bound the run too.
    const rank = typeRank(r.value);
    if (r.op === '$gt' || r.op === '$gte') {
      from = Math.max(from, index.seek([...prefix, r.value], r.op === '$gt'));
      to = Math.min(to, index.seek([...prefix, new BracketEdge(rank, 'max')], false));
    } else {
      to = Math.min(to, index.seek([...prefix, r.value], r.op === '$lte'));
      from = Math.max(from, index.seek([...prefix, new BracketEdge(rank, 'min')], false));
    }
  }
  return [from, Math.max(from, to)];
}

function readRuns(
  index: SortedIndex,
  component: number,
  runs: ReadonlyArray<readonly [number, number]>,
  direction: 1 | -1,
  matches: MatchSet,
  skip: number,
  end: number,
): number[] {
  const bits = matches.asBits();
  const cursors: IndexCursor[] = runs.map(([from, to]) => index.cursor(from, to, direction, component, bits)).filter((c) => !c.done);
  const page = new PageState(skip, end);
  const before = (a: IndexCursor, b: IndexCursor): boolean => {
    // Values of one type bracket compare as numbers (Dates by time); NaN keys need the full order.
    const ka = a.key;
    const kb = b.key;
    let c = ka === ka && kb === kb && a.kind === b.kind ? ka - kb : compareValues(a.value, b.value);
    if (c === 0) c = a.id - b.id;
    return direction === 1 ? c < 0 : c > 0;
  };
  while (cursors.length > 0 && page.position < end) {
    // The run holding the next match, and the one after it: everything the first holds before the
    // second's current match is read in one go (a status's or a venue's matches come in stretches).
    let pick = 0;
    let second = -1;
    for (let i = 1; i < cursors.length; i++) {
      if (before(cursors[i]!, cursors[pick]!)) {
        second = pick;
        pick = i;
      } else if (second === -1 || before(cursors[i]!, cursors[second]!)) second = i;
    }
    const cursor = cursors[pick]!;
    if (cursor.readWhile(second === -1 ? null : cursors[second]!, page) === 0) {
      // At a tie with the next run, or at a key only the full order compares: one entry.
      page.count(cursor.id, cursor.slot);
      cursor.next();
    }
    if (cursor.done) cursors.splice(pick, 1);
  }
  return page.out;
}
