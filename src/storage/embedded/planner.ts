/**
 * Query planning for the embedded engine. A filter (normalised by filter.ts) is a conjunction of
 * clauses; each clause gets its ways of evaluation (clause-access.ts): an access path from the
 * collection's indexes (index-path.ts) or only a test per document. The planner then either walks
 * the cheapest access path and tests the other clauses on each candidate ("walk"), intersects the
 * clauses' bitsets ("bits"), or tests every document ("scan"), whichever the cost model
 * (plan-cost.ts) says is cheaper; clause bitsets come from the clause cache when the clause recurs,
 * so totals of broad lists cost a few word-wise ANDs instead of a pass over every match.
 */
import { type Scalar } from '../port.js';
import { type Bitset } from './bitset.js';
import { type Access, ClauseAccesses } from './clause-access.js';
import { type ClauseCache } from './clause-cache.js';
import { type DateColumn } from './date-column.js';
import { exprKey, type Expr } from './filter.js';
import { type GeoIndex } from './geo-index.js';
import { indexableValue, IndexPaths, type RangeOp } from './index-path.js';
import { MatchSet, sortedUnique } from './match-set.js';
import { bitsCost, scanCost, walkCost } from './plan-cost.js';
import { compilePredicate, type PredicateContext, type StoredDoc } from './predicate.js';
import { type ScratchBits } from './scratch-bits.js';
import { type SortedIndex } from './sorted-index.js';
import { type TextIndex } from './text-index.js';
import { type ValuePostings } from './value-postings.js';

/** What the planner reads from its collection. */
export interface PlannerHost {
  readonly docs: ReadonlyArray<StoredDoc | undefined>;
  readonly live: Bitset;
  readonly liveCount: number;
  slotOfId(id: number): number | undefined;
  /** The owner (_id) of a value in the single-field unique index on `field`, if there is one. */
  uniqueOwner(field: string): ((value: Scalar) => number | undefined) | undefined;
  readonly sortedIndexes: readonly SortedIndex[];
  readonly textIndex: TextIndex | null;
  geoIndexFor(field: string): GeoIndex | undefined;
  readonly predicateContext: PredicateContext;
  readonly cache: ClauseCache;
  /** Postings of an unindexed top-level field, if built. */
  postings(field: string): ValuePostings | undefined;
  /** Builds (one pass) and keeps the postings of an unindexed top-level field. */
  buildPostings(field: string): ValuePostings;
}

/** One way of running a conjunction, with its estimated matches and cost. */
export interface Plan {
  estimate: number;
  cost: number;
  run(): MatchSet;
  /** What running it reads (explain). */
  uses(): Uses;
}

/** The indexes a plan reads, and whether it examines every document. */
export interface Uses {
  indexes: string[];
  scan: boolean;
}

export type Restriction = { field: string; values: Scalar[] } | { field: string; op: RangeOp; value: Scalar };

function combine(parts: readonly Uses[]): Uses {
  return { indexes: [...new Set(parts.flatMap((part) => part.indexes))].sort(), scan: parts.some((part) => part.scan) };
}

const NOTHING: Uses = { indexes: [], scan: false };

const EMPTY = MatchSet.ofSlots([]);

export class Planner {
  private readonly paths: IndexPaths;
  private readonly accesses: ClauseAccesses;

  /** `bits` lends the scratch bitsets of a read: evaluate only inside `bits.scoped`. */
  constructor(
    private readonly host: PlannerHost,
    private readonly bits: ScratchBits,
  ) {
    this.paths = new IndexPaths(host, bits);
    this.accesses = new ClauseAccesses(host, bits, this.paths, (conjuncts) => this.planConjunction(conjuncts));
  }

  /** The Date column of a top-level field (built on first use, then kept current by writes), if the host keeps them. */
  dateColumn(field: string): DateColumn | undefined {
    return this.host.predicateContext.dateColumn?.(field);
  }

  /** The documents matching an expression (the root of parseFilter). */
  evaluate(expr: Expr): MatchSet {
    if (expr.kind !== 'and' || expr.children.length < 2) return this.planConjunction(expr.kind === 'and' ? expr.children : [expr]).run();
    // A whole conjunction that recurs (a listing's filter while people page through it) is kept
    // like a clause: exact write by write, its matches and total are then read, not recomputed.
    const cache = this.host.cache;
    const key = exprKey(expr);
    const cached = cache.get(key);
    if (cached !== undefined) return MatchSet.ofBits(cached.bits, cached.count);
    const matches = this.planConjunction(expr.children).run();
    if (cache.noteSeen(key) >= 2) {
      // A copy: the matches may be this read's scratch or another entry's bitset.
      cache.put(key, this.bits.emptyBits().copyFrom(matches.asBits()), compilePredicate(expr, this.host.predicateContext), matches.size);
    }
    return matches;
  }

  /** What `evaluate` would read for the expression (explain), without evaluating it. */
  explain(expr: Expr): Uses {
    // A whole filter kept in the cache is read from there (see evaluate): like a cached clause, it
    // scans nothing now and stands for the indexes its clauses are answered from.
    if (expr.kind === 'and' && expr.children.length >= 2 && this.host.cache.get(exprKey(expr)) !== undefined) {
      return combine(expr.children.map((child) => ({ indexes: this.clauseUses(child).indexes, scan: false })));
    }
    return this.planConjunction(expr.kind === 'and' ? expr.children : [expr]).uses();
  }

  /** Field restrictions every match satisfies (for choosing ordered walks). */
  restrictions(expr: Expr): Restriction[] {
    const out: Restriction[] = [];
    for (const child of expr.kind === 'and' ? expr.children : [expr]) {
      const restriction = restrictionOf(child);
      if (restriction !== undefined) out.push(restriction);
    }
    return out;
  }

  /** The index (or postings) a clause is answered from, as `IndexPaths.indexPath` would choose it. */
  private clauseUses(expr: Expr): Uses {
    const host = this.host;
    switch (expr.kind) {
      case 'const':
        return NOTHING;
      case 'text':
        return host.textIndex === null ? { indexes: [], scan: true } : { indexes: [host.textIndex.name], scan: false };
      case 'geo': {
        const index = host.geoIndexFor(expr.condition.field);
        return index === undefined ? { indexes: [], scan: true } : { indexes: [index.name], scan: false };
      }
      case 'and':
      case 'or':
      case 'nor':
        return combine(expr.children.map((child) => this.planConjunction(child.kind === 'and' ? child.children : [child]).uses()));
      case 'exists':
        return { indexes: [], scan: true };
      case 'cmp':
      case 'in': {
        const lookup =
          (expr.kind === 'cmp' && expr.op === '$eq' && indexableValue(expr.value)) ||
          (expr.kind === 'in' && !expr.negated && expr.values.every(indexableValue));
        const range = expr.kind === 'cmp' && expr.op !== '$eq' && expr.op !== '$ne' && indexableValue(expr.value);
        if (expr.field === '_id' && lookup) return { indexes: ['_id_'], scan: false };
        if (expr.field.includes('.') || (!lookup && !range)) return { indexes: [], scan: true };
        const choice = this.paths.indexFor(expr.field);
        if (choice !== null) return { indexes: [choice.index.name], scan: false };
        return lookup && host.postings(expr.field) !== undefined ? { indexes: [`postings:${expr.field}`], scan: false } : { indexes: [], scan: true };
      }
    }
  }

  // -------------------------------------------------------------------------
  // Conjunctions
  // -------------------------------------------------------------------------

  /** The cheapest of walking one clause's slots, ANDing the clauses' bitsets, and a full scan. */
  private planConjunction(conjuncts: readonly Expr[]): Plan {
    const host = this.host;
    const clauses = conjuncts.filter((c) => !(c.kind === 'const' && c.value));
    if (clauses.some((c) => c.kind === 'const')) return { estimate: 0, cost: 0, run: () => EMPTY, uses: () => NOTHING };
    if (clauses.length === 0) {
      // Every document, without looking at any: no index, but no scan either.
      return { estimate: host.liveCount, cost: 0, run: () => MatchSet.ofBits(host.live, host.liveCount), uses: () => NOTHING };
    }
    const accesses = clauses.map((clause) => this.accesses.access(clause));
    const estimate = Math.min(host.liveCount, ...accesses.map((a) => a.estimate));
    // A cached clause is a bitset kept exact write by write: it reads no index and scans nothing now,
    // but it stands for the index it was built from, which is what explain reports.
    const usesOf = (chosen: readonly Access[]): Uses =>
      combine(chosen.map((a) => (a.cached !== null ? { indexes: this.clauseUses(a.expr).indexes, scan: false } : this.clauseUses(a.expr))));
    // Nothing can match: running reads nothing, and the look-ups that came back empty are all the
    // planning read (not the clauses only a scan could test, which are never tested).
    if (estimate === 0) return { estimate: 0, cost: 0, run: () => EMPTY, uses: () => usesOf(accesses.filter((a) => a.estimate === 0)) };
    if (accesses.length === 1 && accesses[0]!.cached !== null) {
      const cached = accesses[0]!.cached;
      return { estimate, cost: 0, run: () => MatchSet.ofBits(cached.bits, cached.count), uses: () => usesOf(accesses) };
    }

    const options: Plan[] = [];
    // Walk: the cheapest slot list; each other clause is tested per candidate (see walkCost).
    for (const driver of accesses) {
      if (driver.slots === null) continue;
      const byBits = new Set<Access>();
      const cost = walkCost(driver, accesses, byBits);
      // The other clauses are tested on the driver's candidates: only the driver and the bitsets read indexes.
      options.push({ estimate, cost, run: () => this.runWalk(driver, accesses, byBits), uses: () => usesOf([driver, ...byBits]) });
    }
    options.push({ estimate, cost: bitsCost(accesses, this.bits.words), run: () => this.runBits(accesses), uses: () => usesOf(accesses) });
    options.push({ estimate, cost: scanCost(accesses, host.liveCount), run: () => this.runScan(accesses), uses: () => ({ indexes: [], scan: true }) });
    return options.reduce((best, option) => (option.cost < best.cost ? option : best));
  }

  private runWalk(driver: Access, accesses: readonly Access[], byBits: ReadonlySet<Access>): MatchSet {
    const docs = this.host.docs;
    const others = accesses.filter((a) => a !== driver).sort((a, b) => a.testCost - b.testCost);
    const bitTests = others.filter((a) => byBits.has(a)).map((a) => a.materialize().bits);
    const predicates = others.filter((a) => !byBits.has(a)).map((a) => a.predicate);
    const candidates = driver.slots!();
    const found: number[] = [];
    candidates: for (let i = 0; i < candidates.length; i++) {
      const slot = candidates[i]!;
      for (let b = 0; b < bitTests.length; b++) if (!bitTests[b]!.has(slot)) continue candidates;
      if (predicates.length > 0) {
        const doc = docs[slot];
        if (doc === undefined) continue;
        for (let p = 0; p < predicates.length; p++) if (!predicates[p]!(doc, slot)) continue candidates;
      }
      found.push(slot);
    }
    return MatchSet.ofSlots(sortedUnique(found), () => this.bits.scratch());
  }

  private runBits(accesses: readonly Access[]): MatchSet {
    const ordered = [...accesses].sort((a, b) => a.estimate - b.estimate);
    const first = ordered[0]!.materialize();
    const result = first.shared ? this.bits.scratch(first.bits) : first.bits;
    const count = result.andAll(ordered.slice(1).map((access) => access.materialize().bits));
    return MatchSet.ofBits(result, count);
  }

  private runScan(accesses: readonly Access[]): MatchSet {
    const docs = this.host.docs;
    const predicates = [...accesses].sort((a, b) => a.testCost - b.testCost).map((a) => a.predicate);
    const found: number[] = [];
    this.host.live.forEach((slot) => {
      const doc = docs[slot]!;
      for (let p = 0; p < predicates.length; p++) if (!predicates[p]!(doc, slot)) return;
      found.push(slot);
    });
    return MatchSet.ofSlots(found, () => this.bits.scratch());
  }
}

/** A field restriction every match of a clause satisfies, or undefined. */
function restrictionOf(expr: Expr): Restriction | undefined {
  if (expr.kind === 'cmp' && !expr.field.includes('.') && indexableValue(expr.value)) {
    if (expr.op === '$eq') return { field: expr.field, values: [expr.value] };
    if (expr.op !== '$ne') return { field: expr.field, op: expr.op, value: expr.value };
  }
  if (expr.kind === 'in' && !expr.negated && !expr.field.includes('.') && expr.values.every(indexableValue)) {
    return { field: expr.field, values: expr.values };
  }
  if (expr.kind === 'or') {
    // An $or whose every branch pins the same field to values pins it to their union.
    let field: string | null = null;
    const values: Scalar[] = [];
    for (const branch of expr.children) {
      const pins = (branch.kind === 'and' ? branch.children : [branch])
        .map(restrictionOf)
        .filter((r): r is { field: string; values: Scalar[] } => r !== undefined && 'values' in r);
      const pin: { field: string; values: Scalar[] } | undefined = field === null ? pins[0] : pins.find((p) => p.field === field);
      if (pin === undefined) return undefined;
      field = pin.field;
      values.push(...pin.values);
    }
    if (field !== null) return { field, values };
  }
  return undefined;
}
