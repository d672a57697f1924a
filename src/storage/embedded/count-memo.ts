/**
 * Per-value counts of `countValues` calls that list the values (`venueId $in` the venues near a
 * point), by field and the rest of the filter: "events near me" asks about the same city's venues
 * under the same date window again and again. Values are filled as they are asked for (see
 * ValueCounts.listedValueCounts); every write to the collection clears them all.
 *
 * The memo stays in the engine rather than above the port, beside the events service's distance
 * ordering that asks: the counts change with any write to the collection — the events service's
 * own, the linked-post service's `updateMany` clearing a deleted venue's `venueId`, the terms
 * service's `$pull`, the seed and import commands — and only the engine sees every one of them and
 * so clears the memo exactly. Only the engine can also tell, from its Date columns and without
 * counting again, that a filter whose Date bound moved still matches the same documents. Above the
 * port the memo would also sit over MongoDB, which other processes write to.
 */
import { type Scalar } from '../port.js';
import { isPlainKey } from './bson.js';
import { type DateColumn } from './date-column.js';
import { type DocumentTable } from './document-table.js';
import { exprKey, type Expr } from './filter.js';

/** Filters whose per-value counts are remembered at once. */
const MAX_LISTED_COUNTS = 16;
/**
 * Filter shapes, and members per shape, kept for carrying counts over (see listedFamilies): a
 * complete member holds a count per venue (20,000 at a million events), so at most 32 are kept.
 */
const MAX_LISTED_FAMILIES = 8;
const MAX_FAMILY_MEMBERS = 4;

/** One filter's remembered counts, by listed value. */
export interface ListedCounts {
  counts: Map<string | number, number>;
  /** Every value's count is in `counts` (one pass over the index counted them all). */
  complete: boolean;
}

interface DateBound {
  field: string;
  time: number;
}

const RANGE_OPERATORS: ReadonlySet<string> = new Set(['$lt', '$lte', '$gt', '$gte']);

/** Stands for every Date bound in a family's key. */
const DATE_PLACEHOLDER = new Date(0);

export class ListedCountMemo {
  /** Counts by field and the rest of the filter. */
  private readonly listedCounts = new Map<string, ListedCounts>();
  /**
   * The last few listed counts per filter shape with its Date bounds left out (see
   * dateBoundFamily), with their bounds: the status filter's `dateUtc <= now` moves every second,
   * while the documents it matches only change when a scheduled post's date passes. Cleared with
   * listedCounts.
   */
  private readonly listedFamilies = new Map<string, Array<{ bounds: Map<string, DateBound>; entry: ListedCounts }>>();

  constructor(
    private readonly table: DocumentTable,
    private readonly dateColumn: (field: string) => DateColumn,
  ) {}

  /**
   * The remembered counts of `field`'s listed values under the rest of a filter: this filter's
   * own, those of a member of its family that matches the same documents, or a new empty entry.
   */
  entry(field: string, rest: Expr): ListedCounts {
    const key = `${field}\u0000${exprKey(rest)}`;
    let memo = this.listedCounts.get(key);
    if (memo !== undefined) return memo;
    const family = dateBoundFamily(rest);
    const familyKey = family === null ? '' : `${field}\u0000${family.key}`;
    const members = family === null ? [] : (this.listedFamilies.get(familyKey) ?? []);
    // The same filter with a moved Date bound matches the same documents when none holds a Date
    // between the old bound and the new one: its counts carry over. Several date windows share
    // a shape (the default one, next week's), so a family keeps a few members, newest last.
    const reused = members.findLast((member) => this.sameDateMatches(member.bounds, family!.bounds));
    memo = reused?.entry ?? { counts: new Map(), complete: false };
    this.listedCounts.set(key, memo);
    // Keys move with the clock (a status bound to the second): the oldest go first.
    if (this.listedCounts.size > MAX_LISTED_COUNTS) this.listedCounts.delete(this.listedCounts.keys().next().value!);
    if (family !== null) {
      const kept = members.filter((member) => member !== reused);
      kept.push({ bounds: family.bounds, entry: memo });
      if (kept.length > MAX_FAMILY_MEMBERS) kept.shift();
      this.listedFamilies.delete(familyKey);
      this.listedFamilies.set(familyKey, kept);
      if (this.listedFamilies.size > MAX_LISTED_FAMILIES) this.listedFamilies.delete(this.listedFamilies.keys().next().value!);
    }
    return memo;
  }

  /** Forgets every count: called on every write. */
  clear(): void {
    // Only when they hold something: V8's Map#clear allocates a fresh table even for an empty map,
    // two per stored document of a bulk load, which never lists counts.
    if (this.listedCounts.size > 0) this.listedCounts.clear();
    if (this.listedFamilies.size > 0) this.listedFamilies.clear();
  }

  /**
   * Whether two filters of one family (see dateBoundFamily) match the same documents: no stored
   * document holds a Date between any bound's two values (inclusive), and none an array there.
   * One pass over the field's Date column per moved bound.
   */
  private sameDateMatches(before: ReadonlyMap<string, DateBound>, after: ReadonlyMap<string, DateBound>): boolean {
    for (const [name, bound] of after) {
      const previous = before.get(name);
      if (previous === undefined) return false;
      if (previous.time === bound.time) continue;
      const column = this.dateColumn(bound.field);
      if (column.arrays.count() > 0) return false;
      const low = Math.min(previous.time, bound.time);
      const high = Math.max(previous.time, bound.time);
      const times = column.values;
      const end = Math.min(times.length, this.table.nextSlot);
      // NaN (no Date, or a free slot) compares false.
      for (let slot = 0; slot < end; slot++) {
        const time = times[slot]!;
        if (time >= low && time <= high) return false;
      }
    }
    return true;
  }
}

/**
 * A filter's shape with the Date operands of its range comparisons left out (the key), and those
 * bounds by field and operator. Null when there are none, when one field and operator occur twice
 * (the bounds could not be paired), or for a dotted field (no Date column).
 */
function dateBoundFamily(expr: Expr): { key: string; bounds: Map<string, DateBound> } | null {
  const bounds = new Map<string, DateBound>();
  let pairable = true;
  const mask = (node: Expr): Expr => {
    if (node.kind === 'and' || node.kind === 'or' || node.kind === 'nor') return { kind: node.kind, children: node.children.map(mask) };
    if (node.kind !== 'cmp' || !(node.value instanceof Date) || !RANGE_OPERATORS.has(node.op)) return node;
    const name = `${node.field}\u0000${node.op}`;
    if (bounds.has(name) || node.field.includes('.')) pairable = false;
    bounds.set(name, { field: node.field, time: node.value.getTime() });
    return { ...node, value: DATE_PLACEHOLDER };
  };
  const masked = mask(expr);
  return pairable && bounds.size > 0 ? { key: exprKey(masked), bounds } : null;
}

/**
 * A top-level `field $in [numbers or strings]` clause of a conjunction, and the conjunction
 * without it. Only plain values: null (missing fields) and NaN follow matcher rules, not index keys.
 */
export function listedClause(expr: Expr, field: string): { values: Scalar[]; rest: Expr } | null {
  if (expr.kind !== 'and' || field.includes('.')) return null;
  const at = expr.children.findIndex((child) => child.kind === 'in' && child.field === field && !child.negated && child.values.every(isPlainKey));
  if (at < 0) return null;
  const clause = expr.children[at] as Extract<Expr, { kind: 'in' }>;
  return { values: clause.values, rest: { kind: 'and', children: expr.children.filter((_, i) => i !== at) } };
}
