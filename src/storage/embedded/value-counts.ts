/**
 * The values a field takes over a filter's matches: `distinct`, and `countValues` (how many
 * matching documents hold each value). Both read a sorted index led by the field when one exists
 * and the matches are many, instead of every matching document; a filter listing the field's
 * values (`venueId $in` the venues near a point) is counted value by value and remembered (see
 * count-memo.ts).
 */
import { type Filter, type Scalar } from '../port.js';
import { cloneValue, compareValues, distinctValues, EMPTY_ARRAY_KEY, encodeKey, isPlainObject, keyValuesAt } from './bson.js';
import { listedClause, type ListedCountMemo } from './count-memo.js';
import { type DocumentTable } from './document-table.js';
import { checkFieldPath, type Expr, refuse } from './filter.js';
import { type IndexSet } from './index-set.js';
import { type MatchSet } from './match-set.js';
import { type Planner } from './planner.js';
import { type StoredDoc } from './predicate.js';
import { type QueryExecution } from './query.js';

/** Values to count past which one pass over the index (of this many entries per value) beats two seeks each. */
const FULL_PASS_VALUES = 1_000;

type ValueCount = { value: Scalar; count: number };

/**
 * A field path's value as an aggregation expression (`'$a.b'`) evaluates it, unlike query and
 * index paths (`keyValuesAt`): embedded documents are descended into; an array along the path
 * maps to the remaining path's values in its embedded-document elements (other elements and
 * missing results are skipped, nothing is flattened, numeric segments are field names); undefined
 * when missing.
 */
function expressionValueAt(value: unknown, segments: readonly string[], index: number): unknown {
  if (!isPlainObject(value)) return undefined;
  const segment = segments[index]!;
  const child = Object.hasOwn(value, segment) ? value[segment] : undefined;
  if (index === segments.length - 1) return child;
  if (isPlainObject(child)) return expressionValueAt(child, segments, index + 1);
  if (!Array.isArray(child)) return undefined;
  const out: unknown[] = [];
  for (const element of child) {
    const nested = expressionValueAt(element, segments, index + 1);
    if (nested !== undefined) out.push(nested);
  }
  return out;
}

export class ValueCounts {
  constructor(
    private readonly table: DocumentTable,
    private readonly indexes: IndexSet,
    private readonly planner: Planner,
    private readonly queries: QueryExecution,
    private readonly memo: ListedCountMemo,
  ) {}

  /**
   * MongoDB's distinct over `select` (same planning and refusals as `find`): the field's values
   * are read like sort keys (arrays along the path traversed, a trailing array contributes its
   * elements, one level), null, missing and empty arrays contribute nothing, and equal values
   * (BSON comparison: Dates by time) are kept once. Ascending BSON order, for determinism only.
   */
  distinct(field: string, filter: Filter): Scalar[] {
    if (typeof field !== 'string') refuse('distinct needs a field path string.');
    checkFieldPath(field, 'distinct');
    const queries = this.queries;
    const expr = queries.parse(filter);
    const { indexed, docs } = queries.read(() => {
      const matches = queries.match(expr);
      const counts = this.indexedValueCounts(field, matches, true, expr);
      return { indexed: counts, docs: counts === null ? this.table.matched(matches) : [] };
    });
    if (indexed !== null) return cloneValue(indexed.map((group) => group.value)) as Scalar[];
    const values: unknown[] = [];
    for (const doc of docs) {
      for (const value of keyValuesAt(doc, field)) {
        if (value !== null && value !== undefined && value !== EMPTY_ARRAY_KEY) values.push(value);
      }
    }
    values.sort(compareValues);
    const unique: unknown[] = [];
    for (const value of values) {
      if (unique.length === 0 || compareValues(unique[unique.length - 1], value) !== 0) unique.push(value);
    }
    return cloneValue(unique) as Scalar[];
  }

  /**
   * The mongodb engine's `$match` → per-document `$setUnion` → `$unwind` → `$group` over `select`
   * (same planning and refusals as `find`). The field is read the way an aggregation field path
   * (`'$a.b'`) reads it (see `expressionValueAt`); an array contributes its distinct elements, any
   * other value itself; null, missing and empty arrays contribute nothing. Values are grouped by
   * BSON equality (numbers by value, Dates by time). Ascending BSON order, for determinism only,
   * except for a filter listing the field's values (see listedValueCounts).
   */
  countValues(field: string, filter: Filter): ValueCount[] {
    if (typeof field !== 'string') refuse('countValues needs a field path string.');
    checkFieldPath(field, 'countValues');
    const queries = this.queries;
    const expr = queries.parse(filter);
    // Counting value by value applies a `field $in [...]` clause by itself: the rest of the filter
    // is evaluated without it (a list of hundreds of venues otherwise costs its index seeks twice).
    const listed = listedClause(expr, field);
    if (listed !== null) {
      const counts = queries.read(() => this.listedValueCounts(field, listed));
      if (counts !== null) return counts;
    }
    const { indexed, docs } = queries.read(() => {
      const matches = queries.match(expr);
      const counts = this.indexedValueCounts(field, matches, false, expr);
      return { indexed: counts, docs: counts === null ? this.table.matched(matches) : [] };
    });
    if (indexed !== null) return cloneValue(indexed) as ValueCount[];
    return cloneValue(groupByValue(docs, field)) as ValueCount[];
  }

  /**
   * Per distinct value of a top-level field, how many matching documents hold it (1 at most with
   * `firstOnly`), read from a sorted index led by that field instead of from every matching
   * document — term counts over all published events. For a top-level field, the index's keys
   * (elements of an array, each once per document) group exactly like the aggregation path and
   * like distinct; null, missing and empty arrays are left out as both do. Null when no such
   * index exists, or when the matches are so few that reading them is cheaper. Ascending BSON order.
   */
  private indexedValueCounts(field: string, matches: MatchSet, firstOnly: boolean, expr: Expr): Array<{ value: unknown; count: number }> | null {
    const index = this.indexes.countingIndex(field);
    if (index === undefined) return null;
    // A filter listing the field's values names the only values that can match: just those are
    // looked up. Not for a field holding arrays: a listed element's documents count their other
    // elements too.
    const listedValues =
      index.arrayDocs[0] !== 0
        ? undefined
        : this.planner.restrictions(expr).find((r): r is { field: string; values: Scalar[] } => r.field === field && 'values' in r)?.values;
    const values = listedValues === undefined ? index.leadingValues() : distinctValues(listedValues);
    // The index visits the entries of each value (a bit test each) plus two seeks per value; the
    // documents' path reads each match (a few cache misses).
    const entries = (index.size * values.length) / Math.max(1, index.distinctLeading);
    if (entries * 4 + values.length * 2_000 > matches.size * 150) return null;
    const bits = matches.asBits();
    const counts: Array<{ value: unknown; count: number }> = [];
    for (const value of values) {
      if (value === null || value === EMPTY_ARRAY_KEY) continue;
      const count = index.countMarked(index.seek([value], false), index.seek([value], true), bits, firstOnly);
      if (count > 0) counts.push({ value, count });
    }
    return counts.sort((a, b) => compareValues(a.value, b.value));
  }

  /**
   * countValues for a filter with a `field $in [numbers or strings]` clause (see listedClause):
   * each listed value counted under the rest of the filter, through the value's index entries,
   * and remembered for the next call with the same rest (until a write). Null when the field has
   * no counting index or holds arrays. In the order the values are listed; fresh scalars, nothing
   * to clone.
   */
  private listedValueCounts(field: string, listed: { values: Scalar[]; rest: Expr }): ValueCount[] | null {
    const index = this.indexes.countingIndex(field);
    // A listed element of an array field would count its documents' other elements too.
    if (index === undefined || index.arrayDocs[0] !== 0) return null;
    const memo = this.memo.entry(field, listed.rest);
    const counts = memo.counts;
    // Plain strings and numbers (no NaN): a Set and a Map key them by BSON equality.
    const values = [...new Set(listed.values as Array<string | number>)];
    const missing = memo.complete ? [] : values.filter((value) => !counts.has(value));
    if (missing.length > 0) {
      const bits = this.queries.match(listed.rest).asBits();
      // Two seeks per value, or one pass over the whole index that counts every value at once
      // (a city's venues at a million events: thousands of values).
      if (missing.length * FULL_PASS_VALUES > index.size) {
        index.countMarkedRuns(bits, (value, count) => {
          if (typeof value === 'string' || typeof value === 'number') counts.set(value, count);
        });
        memo.complete = true;
      } else {
        for (const value of missing) counts.set(value, index.countMarked(index.seek([value], false), index.seek([value], true), bits, false));
      }
    }
    const found: ValueCount[] = [];
    for (const value of values) {
      const count = counts.get(value) ?? 0;
      if (count > 0) found.push({ value, count });
    }
    // In the listed order: the port leaves the order open, and a near-me list is thousands long.
    return found;
  }
}

/**
 * The aggregation path's groups over documents (see countValues): per distinct value of the field,
 * how many documents hold it, in ascending BSON order; not cloned.
 */
function groupByValue(docs: readonly StoredDoc[], field: string): Array<{ value: unknown; count: number }> {
  const segments = field.split('.');
  const groups = new Map<string, { value: unknown; count: number }>();
  // Plain numbers (ids: venueId per event) are counted by value, without a key string each.
  const numbers = new Map<number, { value: number; count: number }>();
  for (const doc of docs) {
    const value = expressionValueAt(doc, segments, 0);
    if (typeof value === 'number' && !Number.isNaN(value)) {
      const normal = value === 0 ? 0 : value;
      const group = numbers.get(normal);
      if (group === undefined) numbers.set(normal, { value: normal, count: 1 });
      else group.count += 1;
      continue;
    }
    const seen = new Set<string>();
    for (const element of Array.isArray(value) ? value : [value]) {
      if (element === null || element === undefined) continue;
      const key = encodeKey(element);
      if (seen.has(key)) continue;
      seen.add(key);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, { value: element, count: 1 });
      else group.count += 1;
    }
  }
  for (const group of numbers.values()) {
    const key = encodeKey(group.value);
    const same = groups.get(key);
    if (same === undefined) groups.set(key, group);
    else same.count += group.count;
  }
  return [...groups.values()].sort((a, b) => compareValues(a.value, b.value));
}
