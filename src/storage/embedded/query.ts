/**
 * Reads of one collection: a filter parsed (with the collection's refusals), planned and evaluated
 * by the planner inside a read scope, then paged by ordering.ts — find, findOne, findPage, count
 * and explain. Lists of ids or unique keys (`_id $in [...]`, a slug) skip planning: they are slot
 * look-ups.
 */
import { type CompiledQuery, type Filter, type QueryPlan } from '../port.js';
import { isPlainKey, isPlainObject } from './bson.js';
import { type DocumentTable } from './document-table.js';
import { checkCount, checkSort, type Expr, parseFilter, refuse } from './filter.js';
import { type IndexSet } from './index-set.js';
import { type MatchSet } from './match-set.js';
import { orderPlan, pageSlots } from './ordering.js';
import { type Planner } from './planner.js';
import { type StoredDoc } from './predicate.js';
import { type ScratchBits } from './scratch-bits.js';

export class QueryExecution {
  constructor(
    readonly name: string,
    private readonly table: DocumentTable,
    private readonly indexes: IndexSet,
    private readonly planner: Planner,
    private readonly bits: ScratchBits,
  ) {}

  /** A filter as the planner takes it; refused like MongoDB when it needs an index the collection lacks. */
  parse(filter: Filter): Expr {
    const expr = parseFilter(filter);
    // MongoDB: "text index required for $text query".
    if (this.indexes.textIndex === null && hasText(expr)) refuse(`$text needs a text index, and collection ${this.name} has none.`);
    return expr;
  }

  /**
   * Evaluates filters and consumes their MatchSets, then lets the planner reuse its scratch memory.
   * Deferred index entries are added first (see IndexSet.catchUp).
   */
  read<R>(body: () => R): R {
    this.indexes.catchUp();
    return this.bits.scoped(body);
  }

  /** Only inside `read`: a MatchSet may use scratch memory that is reused once `read` returns. */
  match(expr: Expr): MatchSet {
    return this.planner.evaluate(expr);
  }

  /** The stored documents matching a filter, in natural order. */
  select(filter: Filter): StoredDoc[] {
    return this.read(() => this.table.matched(this.match(this.parse(filter))));
  }

  findOne(filter: Filter): StoredDoc | undefined {
    return this.read(() => {
      let found: StoredDoc | undefined;
      this.match(this.parse(filter)).forEach((slot) => {
        found = this.table.docs[slot];
        return false;
      });
      return found;
    });
  }

  find(query: CompiledQuery): StoredDoc[] {
    // The linked records of every listed page (`_id $in` a few ids) are slot look-ups: parsing and
    // planning such a filter cost more than reading the documents.
    const lookup = keyLookup(query);
    if (lookup !== null) {
      const ids = this.indexes.idsOf(lookup.field, lookup.values);
      if (ids !== null) return this.table.byIds(ids);
    }
    const expr = this.parse(query.filter);
    return this.read(() => this.page(expr, this.match(expr), query));
  }

  findPage(query: CompiledQuery): { docs: StoredDoc[]; total: number } {
    const expr = this.parse(query.filter);
    return this.read(() => {
      const matches = this.match(expr);
      return { docs: this.page(expr, matches, query), total: matches.size };
    });
  }

  count(filter: Filter): number {
    return this.read(() => this.match(this.parse(filter)).size);
  }

  explain(query: CompiledQuery): QueryPlan {
    const expr = this.parse(query.filter);
    return this.read(() => {
      const uses = this.planner.explain(expr);
      const request = { sort: checkSort(query.sort), skip: checkCount(query.skip, 'skip'), limit: checkCount(query.limit, 'limit') };
      const order = orderPlan({ docs: this.table.docs, sortedIndexes: this.indexes.sortedIndexes }, this.match(expr), request, this.planner.restrictions(expr));
      const indexes = [...new Set([...uses.indexes, ...(order.index === undefined ? [] : [order.index])])].sort();
      return { indexes, collectionScan: uses.scan, sort: order.sort };
    });
  }

  private page(expr: Expr, matches: MatchSet, query: CompiledQuery): StoredDoc[] {
    const sort = checkSort(query.sort);
    const skip = checkCount(query.skip, 'skip');
    const limit = checkCount(query.limit, 'limit');
    const docs = this.table.docs;
    const host = { docs, ids: this.table.slotIds, sortedIndexes: this.indexes.sortedIndexes, dateColumn: (field: string) => this.planner.dateColumn(field) };
    return pageSlots(host, matches, { sort, skip, limit }, this.planner.restrictions(expr)).map((slot) => docs[slot]!);
  }
}

/** Whether an expression holds a `$text` clause. */
export function hasText(expr: Expr): boolean {
  if (expr.kind === 'text') return true;
  return (expr.kind === 'and' || expr.kind === 'or' || expr.kind === 'nor') && expr.children.some(hasText);
}

/**
 * The values of a filter that is one equality or `$in` on one top-level field, with plain keys only
 * (strings and numbers other than NaN: their encoded key is what a unique index stores, and their
 * equality is the matcher's), for an unsorted, unpaged find. Null for anything else.
 */
function keyLookup(query: CompiledQuery): { field: string; values: ReadonlyArray<string | number> } | null {
  if ((query.sort !== undefined && query.sort.length > 0) || query.skip || query.limit) return null;
  const filter = query.filter as Record<string, unknown>;
  let only: string | undefined;
  for (const key in filter) {
    if (only !== undefined) return null;
    only = key;
  }
  if (only === undefined || only.startsWith('$') || !Object.hasOwn(filter, only)) return null;
  const value = filter[only];
  if (isPlainKey(value)) return { field: only, values: [value] };
  if (!isPlainObject(value)) return null;
  const list = value.$in;
  if (!Array.isArray(list) || Object.keys(value).length !== 1) return null;
  for (const item of list) if (!isPlainKey(item)) return null;
  return { field: only, values: list as Array<string | number> };
}
