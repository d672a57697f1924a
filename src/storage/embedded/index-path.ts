/**
 * Index access paths: for one clause, the positions of the documents it matches in an index — a
 * sorted index (equality and `$in` on its leading field, ranges by binary search, skip scans over a
 * small leading field), `_id` and unique-key look-ups, the text and 2dsphere indexes, or the value
 * postings of an unindexed field — with the cost of reading them as slots or as a bitset.
 */
import { type Scalar } from '../port.js';
import { type Bitset } from './bitset.js';
import { compareValues, isPlainKey, typeRank } from './bson.js';
import { type CachedClause } from './clause-cache.js';
import { type Expr } from './filter.js';
import { BracketEdge, type ProbeValue } from './index-scans.js';
import { COST } from './plan-cost.js';
// Type-only: the planner imports this module, and an emitted import back would make a cycle.
import type { PlannerHost } from './planner.js';
import { type Predicate } from './predicate.js';
import { type ScratchBits } from './scratch-bits.js';
import { type SortedIndex } from './sorted-index.js';
import { type ValuePostings } from './value-postings.js';

/** A skip scan (one range per distinct leading value) is used up to this many leading values. */
const MAX_SKIP_SCAN = 32;

/** An index access path: positions in one sorted index, the text index, or a known slot list. */
export interface IndexPath {
  estimate: number;
  /** A function property, not a method: an access is built with it detached from its path. */
  slots: () => number[];
  slotsCost: number;
  toBits(): Bitset;
  /** For range clauses: the family their bitsets are derived in. */
  family?: { cost: number; materialize(key: string, predicate: Predicate): Bitset };
}

export type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';

type FieldClause = Extract<Expr, { kind: 'cmp' | 'in' }>;

/** What a field clause asks an index for: the values to look up, or one range. */
type Lookup = { values: Scalar[]; range: null } | { values: null; range: { op: RangeOp; value: Scalar } };

/** One range of index positions to visit. */
type Span = readonly [from: number, to: number];

type Probe = { values: ProbeValue[]; after: boolean };

/** Whether an index can look a value up: non-null and not NaN (MongoDB's null and NaN rules need the matcher). */
export function indexableValue(value: Scalar): boolean {
  if (value === null) return false;
  if (typeof value === 'number') return !Number.isNaN(value);
  return true;
}

/** The look-up a field clause makes in an index, or null when its operator or value needs the matcher. */
function lookupOf(expr: FieldClause): Lookup | null {
  if (expr.kind === 'cmp' && expr.op === '$eq' && indexableValue(expr.value)) return { values: [expr.value], range: null };
  if (expr.kind === 'in' && !expr.negated && expr.values.every(indexableValue)) return { values: expr.values, range: null };
  if (expr.kind === 'cmp' && expr.op !== '$eq' && expr.op !== '$ne' && indexableValue(expr.value)) {
    return { values: null, range: { op: expr.op, value: expr.value } };
  }
  return null;
}

/** Probe for the lowest value of `value`'s type bracket that a range can match (NaN and invalid Dates excluded). */
function bracketLow(value: Scalar): Probe {
  if (typeof value === 'number') return { values: [Number.NaN], after: true };
  if (value instanceof Date) return { values: [new Date(Number.NaN)], after: true };
  return { values: [new BracketEdge(typeRank(value), 'min')], after: false };
}

function bracketHigh(value: Scalar): Probe {
  return { values: [new BracketEdge(typeRank(value), 'max')], after: false };
}

function rangeProbes(op: RangeOp, value: Scalar): { lo: Probe; hi: Probe } {
  switch (op) {
    case '$gt':
      return { lo: { values: [value], after: true }, hi: bracketHigh(value) };
    case '$gte':
      return { lo: { values: [value], after: false }, hi: bracketHigh(value) };
    case '$lt':
      return { lo: bracketLow(value), hi: { values: [value], after: false } };
    case '$lte':
      return { lo: bracketLow(value), hi: { values: [value], after: true } };
  }
}

function spanSize(spans: readonly Span[]): number {
  let total = 0;
  for (const [from, to] of spans) if (to > from) total += to - from;
  return total;
}

/** The index positions of a look-up under each prefix (one per leading value of a skip scan). */
function spansOf(index: SortedIndex, prefixes: readonly unknown[][], lookup: Lookup): Span[] {
  const seek = (prefix: unknown[], probe: Probe) => index.seek([...prefix, ...probe.values], probe.after);
  const spans: Span[] = [];
  for (const prefix of prefixes) {
    if (lookup.values !== null) {
      for (const value of lookup.values) spans.push([seek(prefix, { values: [value], after: false }), seek(prefix, { values: [value], after: true })]);
    } else {
      const { lo, hi } = rangeProbes(lookup.range.op, lookup.range.value);
      spans.push([seek(prefix, lo), seek(prefix, hi)]);
    }
  }
  return spans;
}

/** A range bound's distance measure: Dates and numbers have one; other values do not. */
function numeric(value: unknown): number | null {
  return value instanceof Date ? value.getTime() : typeof value === 'number' ? value : null;
}

/** The member of a range family nearest `bound` by value where values have a distance, else the latest. */
function nearestMember(members: readonly CachedClause[], bound: Scalar): CachedClause | undefined {
  let nearest = members[members.length - 1];
  const target = numeric(bound);
  if (target !== null) {
    let best = Infinity;
    for (const member of members) {
      const at = numeric(member.bound);
      if (at !== null && Math.abs(at - target) < best) {
        best = Math.abs(at - target);
        nearest = member;
      }
    }
  }
  return nearest;
}

export class IndexPaths {
  constructor(
    private readonly host: PlannerHost,
    private readonly bits: ScratchBits,
  ) {}

  /** An index access path for a clause, or null when none applies. */
  indexPath(expr: Expr): IndexPath | null {
    switch (expr.kind) {
      case 'text':
        return this.textPath(expr);
      case 'geo':
        return this.geoPath(expr);
      case 'cmp':
      case 'in':
        return this.fieldPath(expr);
      default:
        return null;
    }
  }

  /**
   * The index serving look-ups on `field`: one whose leading field it is (one prefix, the empty
   * one), else one where it comes second after a leading field of few distinct values (a skip
   * scan, one prefix per leading value).
   */
  indexFor(field: string): { index: SortedIndex; prefixes: unknown[][] } | null {
    let best: SortedIndex | null = null;
    for (const index of this.host.sortedIndexes) {
      if (index.fields[0] === field) return { index, prefixes: [[]] };
      if (index.fields[1] === field && index.distinctLeading <= MAX_SKIP_SCAN) {
        if (best === null || index.distinctLeading < best.distinctLeading) best = index;
      }
    }
    return best === null ? null : { index: best, prefixes: best.leadingValues().map((value) => [value]) };
  }

  /** The documents holding any of `values` in a field's postings. */
  postingsPath(postings: ValuePostings, values: readonly Scalar[]): IndexPath {
    const found = [...new Set(values.map((value) => postings.lookup(value)))].filter((p) => p !== undefined);
    const estimate = found.reduce((sum, posting) => sum + posting.size, 0);
    return {
      estimate,
      slots: () => (found.length === 1 ? found[0]!.slots() : found.flatMap((posting) => posting.slots())),
      slotsCost: estimate * COST.entry,
      toBits: () => {
        const bits = this.bits.emptyBits();
        for (const posting of found) posting.orInto(bits);
        return bits;
      },
    };
  }

  /** A path over a known list of slots (look-ups by `_id` or unique key, a 2dsphere search). */
  private slotListPath(slots: number[]): IndexPath {
    return {
      estimate: slots.length,
      slots: () => slots,
      slotsCost: slots.length * COST.entry,
      toBits: () => {
        const bits = this.bits.emptyBits();
        for (const slot of slots) bits.add(slot);
        return bits;
      },
    };
  }

  private textPath(expr: Extract<Expr, { kind: 'text' }>): IndexPath | null {
    const index = this.host.textIndex;
    // Collections without a text index were refused before planning.
    if (index === null) return null;
    const estimate = index.estimateAny(expr.terms);
    const slots = (): number[] => {
      const out: number[] = [];
      index.collectAny(expr.terms, out);
      return out;
    };
    return {
      estimate,
      slots,
      slotsCost: estimate * COST.entry * 2,
      toBits: () => {
        const bits = this.bits.emptyBits();
        for (const slot of slots()) bits.add(slot);
        return bits;
      },
    };
  }

  private geoPath(expr: Extract<Expr, { kind: 'geo' }>): IndexPath | null {
    const index = this.host.geoIndexFor(expr.condition.field);
    if (index === undefined) return null;
    return this.slotListPath(index.within(expr.condition.center, expr.condition.radius).slots);
  }

  /**
   * A comparison or `$in` on one field: `_id` look-ups, then a unique index, then a sorted index
   * (or the field's postings when no sorted index serves it).
   */
  private fieldPath(expr: FieldClause): IndexPath | null {
    if (expr.field === '_id') return this.idPath(expr);
    if (expr.field.includes('.')) return null;
    const lookup = lookupOf(expr);
    if (lookup === null) return null;
    if (lookup.values !== null) {
      const unique = this.uniquePath(expr.field, lookup.values);
      if (unique !== null) return unique;
    }
    const choice = this.indexFor(expr.field);
    if (choice === null) {
      const postings = lookup.values === null ? undefined : this.host.postings(expr.field);
      return postings === undefined ? null : this.postingsPath(postings, lookup.values!);
    }
    return this.sortedPath(choice.index, choice.prefixes, expr.field, lookup);
  }

  /** Equality or `$in` on `_id`: a slot look-up per value. */
  private idPath(expr: FieldClause): IndexPath | null {
    const values = expr.kind === 'cmp' && expr.op === '$eq' ? [expr.value] : expr.kind === 'in' && !expr.negated ? expr.values : null;
    if (values === null) return null;
    const slots: number[] = [];
    for (const value of values) {
      const slot = typeof value === 'number' ? this.host.slotOfId(value) : undefined;
      if (slot !== undefined) slots.push(slot);
    }
    return this.slotListPath(slots);
  }

  /**
   * Equality on a unique field (a slug): one map lookup per value instead of two seeks. Only plain
   * keys (strings, numbers): the values the unique index keys as its documents' scalars. Null
   * when the field has no single-field unique index or a value is not a plain key.
   */
  private uniquePath(field: string, values: readonly Scalar[]): IndexPath | null {
    const owner = this.host.uniqueOwner(field);
    if (owner === undefined || !values.every(isPlainKey)) return null;
    const slots = new Set<number>();
    for (const value of values) {
      const id = owner(value);
      const slot = id === undefined ? undefined : this.host.slotOfId(id);
      if (slot !== undefined) slots.add(slot);
    }
    return this.slotListPath([...slots].sort((a, b) => a - b));
  }

  /** The spans of a look-up in a sorted index; a range also gets its family (see rangeFamily). */
  private sortedPath(index: SortedIndex, prefixes: unknown[][], field: string, lookup: Lookup): IndexPath {
    const spans = spansOf(index, prefixes, lookup);
    const estimate = spanSize(spans);
    const slots = (): number[] => {
      const out: number[] = [];
      for (const [from, to] of spans) index.collect(from, to, out);
      return out;
    };
    // Each document has exactly one entry when no key field holds an array: the complement of the
    // spans is then exactly the non-matching documents, cheaper to clear when it is the smaller part.
    const singleEntry = index.arrayDocs.every((count) => count === 0);
    const toBits = (): Bitset => {
      if (singleEntry && estimate > index.size / 2) {
        const bits = this.bits.copyOf(this.host.live);
        let position = 0;
        for (const [from, to] of [...spans].sort((a, b) => a[0] - b[0])) {
          index.mark(position, from, bits, false);
          position = Math.max(position, to);
        }
        index.mark(position, index.size, bits, false);
        return bits;
      }
      const bits = this.bits.emptyBits();
      for (const [from, to] of spans) index.mark(from, to, bits, true);
      return bits;
    };
    const slotsCost = spans.length * 2 * COST.seek + estimate * COST.entry;
    if (lookup.range === null) return { estimate, slots, slotsCost, toBits };
    // Written out rather than `{ ...path, family }`: a spread plus a key the source lacks gives the
    // object a hidden class of its own (see accessOf in clause-access.ts).
    return { estimate, slots, slotsCost, toBits, family: this.rangeFamily(index, prefixes, field, lookup.range, estimate, toBits) };
  }

  /**
   * Range clauses of one field, direction and type bracket form a family: a new bound is derived
   * from the nearest cached member by re-testing only the documents between the two bounds.
   */
  private rangeFamily(
    index: SortedIndex,
    prefixes: unknown[][],
    field: string,
    range: { op: RangeOp; value: Scalar },
    estimate: number,
    toBits: () => Bitset,
  ): NonNullable<IndexPath['family']> {
    const cache = this.host.cache;
    const lower = range.op === '$gt' || range.op === '$gte';
    const familyKey = `${index.name}|${field}|${lower ? 'lower' : 'upper'}|${typeRank(range.value)}`;
    const members = cache.family(familyKey);
    const bound = range.value;
    const direct = Math.min(estimate, index.size - estimate) * COST.entry + this.bits.words * COST.word;
    const nearest = nearestMember(members, bound);
    // Each document has one entry when no key field holds an array: the bits between the two
    // bounds' positions then flip as a block. Otherwise the documents between the bounds are re-tested.
    const singleEntry = index.arrayDocs.every((count) => count === 0);
    const edge = (value: unknown, op: string, prefix: unknown[]): number =>
      lower ? index.seek([...prefix, value], op === '$gt') : index.seek([...prefix, value], op === '$lte');
    let delta: Array<{ from: number; to: number; set: boolean }> = [];
    let patch = Infinity;
    if (nearest !== undefined) {
      if (singleEntry) {
        delta = prefixes.map((prefix) => {
          const before = edge(nearest.bound, nearest.op!, prefix);
          const after = edge(bound, range.op, prefix);
          // Lower bounds match [edge, end): a smaller edge adds entries; upper bounds match [start, edge).
          return before <= after ? { from: before, to: after, set: !lower } : { from: after, to: before, set: lower };
        });
      } else {
        // Membership can only differ for documents with a key between the two bounds (both included).
        const [a, b] = compareValues(nearest.bound, bound) <= 0 ? [nearest.bound, bound] : [bound, nearest.bound];
        delta = prefixes.map((prefix) => ({ from: index.seek([...prefix, a], false), to: index.seek([...prefix, b], true), set: true }));
      }
      const size = delta.reduce((sum, span) => sum + Math.max(0, span.to - span.from), 0);
      patch = size * (singleEntry ? COST.bit : COST.entry + COST.clause) + this.bits.words * COST.word;
    }
    return {
      cost: Math.min(direct, patch),
      materialize: (key, predicate) => {
        let bits: Bitset;
        let count: number;
        if (nearest !== undefined && patch < direct) {
          cache.touch(familyKey, nearest);
          // A bound that moves with the clock adds a member per request: reuse the evicted one's memory.
          const recycled = cache.evictFromFull(familyKey);
          bits = recycled !== undefined ? recycled.bits.copyFrom(nearest.bits) : this.bits.copyOf(nearest.bits);
          count = nearest.count;
          if (singleEntry) {
            for (const { from, to, set } of delta) count += (set ? 1 : -1) * index.mark(from, to, bits, set);
          } else {
            const docs = this.host.docs;
            const slots: number[] = [];
            for (const { from, to } of delta) index.collect(from, to, slots);
            for (const slot of slots) {
              const doc = docs[slot];
              const match = doc !== undefined && predicate(doc, slot);
              if (bits.has(slot) !== match) count += match ? 1 : -1;
              bits.assign(slot, match);
            }
          }
        } else {
          bits = toBits();
          count = bits.count();
        }
        cache.putInFamily(familyKey, { key, bits, count, predicate, bound, op: range.op });
        return bits;
      },
    };
  }
}
