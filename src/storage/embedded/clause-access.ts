/**
 * A clause's ways of being evaluated, with their costs: its cached bitset; its index access path
 * (see index-path.ts) as slots or as a bitset; the union of its branches' plans (`$or`, `$nor`);
 * the postings of an unindexed field; or a pass testing every document. The planner combines the
 * clauses of a conjunction from these.
 */
import { type Bitset } from './bitset.js';
import { type CachedClause } from './clause-cache.js';
import { exprKey, type Expr } from './filter.js';
import { indexableValue, type IndexPath, type IndexPaths } from './index-path.js';
import { COST, predicateCost } from './plan-cost.js';
// Type-only: the planner imports this module, and an emitted import back would make a cycle.
import type { Plan, PlannerHost } from './planner.js';
import { compilePredicate, type Predicate } from './predicate.js';
import { type ScratchBits } from './scratch-bits.js';

/** A clause with the ways to evaluate it. */
export interface Access {
  expr: Expr;
  key: string;
  predicate: Predicate;
  /** Cost of testing one document (a bit test when cached). */
  testCost: number;
  /** Upper bound of the matching documents. */
  estimate: number;
  /** The matching slots (repeats allowed); null when only a full scan can find them. */
  slots: (() => number[]) | null;
  slotsCost: number;
  cached: CachedClause | null;
  /** Cost of producing its exact bitset now; `materialize` returns it (shared: do not mutate). */
  materializeCost: number;
  materialize(): { bits: Bitset; shared: boolean };
}

type AccessBase = Pick<Access, 'expr' | 'key' | 'predicate' | 'cached' | 'testCost'>;

/** Hands a clause's bitset out: cached when the clause recurs, else this read's alone. */
type Keep = (bits: Bitset) => { bits: Bitset; shared: boolean };

/**
 * A clause's access path: its own fields and its way in, written out field by field. V8 gives every
 * object made as `{ ...base, estimate, … }` (a spread plus keys the source lacks) a hidden class of
 * its own, so every read of a planned query's paths would miss its inline cache.
 */
function accessOf(base: AccessBase, way: Pick<Access, 'estimate' | 'slots' | 'slotsCost' | 'materializeCost' | 'materialize'>): Access {
  return {
    expr: base.expr,
    key: base.key,
    predicate: base.predicate,
    testCost: base.testCost,
    estimate: way.estimate,
    slots: way.slots,
    slotsCost: way.slotsCost,
    cached: base.cached,
    materializeCost: way.materializeCost,
    materialize: way.materialize,
  };
}

export class ClauseAccesses {
  /** `planBranch` plans a conjunction: the branches of `$or` and `$nor` are planned like filters. */
  constructor(
    private readonly host: PlannerHost,
    private readonly bits: ScratchBits,
    private readonly paths: IndexPaths,
    private readonly planBranch: (conjuncts: readonly Expr[]) => Plan,
  ) {}

  access(expr: Expr): Access {
    const cache = this.host.cache;
    const key = exprKey(expr);
    const predicate = compilePredicate(expr, this.host.predicateContext);
    const cached = cache.get(key) ?? null;
    if (cached !== null) return this.cachedAccess(expr, key, predicate, cached);
    const seen = cache.noteSeen(key);
    const testCost = predicateCost(expr);
    const keep: Keep = (bits) => {
      if (seen < 2) {
        // Not kept: this read's alone, reused once it is over.
        this.bits.hold(bits);
        return { bits, shared: false };
      }
      cache.put(key, bits, predicate);
      return { bits, shared: true };
    };
    const base = { expr, key, predicate, cached, testCost };

    if (expr.kind === 'text' && expr.terms.length > 1) {
      const union = this.termUnionAccess(expr, base);
      if (union !== null) return union;
    }
    const path = this.paths.indexPath(expr);
    if (path !== null) return this.pathAccess(path, base, seen, keep);
    if (expr.kind === 'or' || expr.kind === 'nor') return this.logicalAccess(expr, base, keep);
    return this.unindexedAccess(expr, base, seen, keep);
  }

  /** A cached clause: a bitset kept exact write by write, tested bit by bit. */
  private cachedAccess(expr: Expr, key: string, predicate: Predicate, cached: CachedClause): Access {
    return {
      expr,
      key,
      predicate,
      cached,
      testCost: COST.bit,
      estimate: cached.count,
      slots: () => cached.bits.toArray(),
      slotsCost: this.bits.words * COST.word + cached.count * COST.entry,
      materializeCost: 0,
      materialize: () => ({ bits: cached.bits, shared: true }),
    };
  }

  /**
   * A search for several words matches any of them: when each word's own clause is cached (single
   * words recur, pairs rarely do), the union is a few word-wise ORs instead of a postings merge.
   * Null when a word is not cached.
   */
  private termUnionAccess(expr: Extract<Expr, { kind: 'text' }>, base: AccessBase): Access | null {
    const cache = this.host.cache;
    const parts = expr.terms.map((term) => cache.get(exprKey({ kind: 'text', terms: [term] })));
    if (!parts.every((part) => part !== undefined)) return null;
    const union = (): Bitset => {
      const bits = this.bits.scratch(parts[0]!.bits);
      for (let i = 1; i < parts.length; i++) bits.or(parts[i]!.bits);
      return bits;
    };
    const estimate = Math.min(
      this.host.liveCount,
      parts.reduce((sum, part) => sum + part.count, 0),
    );
    const materializeCost = parts.length * this.bits.words * COST.word;
    return accessOf(base, {
      estimate,
      slots: () => union().toArray(),
      slotsCost: materializeCost + estimate * COST.entry,
      materializeCost,
      materialize: () => ({ bits: union(), shared: false }),
    });
  }

  /**
   * A clause an index answers. Materialising pays off only when the clause recurs: its cost is
   * spread over its sightings, and the bitset is kept once a clause has been seen twice. A range
   * clause is materialised within its family (see IndexPaths.rangeFamily).
   */
  private pathAccess(path: IndexPath, base: AccessBase, seen: number, keep: Keep): Access {
    const family = path.family;
    if (family !== undefined) {
      const { key, predicate } = base;
      return accessOf(base, {
        estimate: path.estimate,
        slots: path.slots,
        slotsCost: path.slotsCost,
        materializeCost: family.cost,
        materialize: () => ({ bits: family.materialize(key, predicate), shared: true }),
      });
    }
    return accessOf(base, {
      estimate: path.estimate,
      slots: path.slots,
      slotsCost: path.slotsCost,
      materializeCost: (path.slotsCost + this.bits.words * COST.word) / Math.min(seen, 64),
      materialize: () => keep(path.toBits()),
    });
  }

  /**
   * A clause no index answers: an equality or `$in` on a top-level field reads the field's postings
   * (built by one pass on first use); anything else tests every document.
   */
  private unindexedAccess(expr: Expr, base: AccessBase, seen: number, keep: Keep): Access {
    const liveCount = this.host.liveCount;
    const scanCost = liveCount * (base.testCost + COST.entry + COST.doc);
    const postable =
      (expr.kind === 'cmp' && expr.op === '$eq' && indexableValue(expr.value)) || (expr.kind === 'in' && !expr.negated && expr.values.every(indexableValue));
    if (postable && !expr.field.includes('.') && expr.field !== '_id') {
      // One pass builds the postings of every value of the field; later clauses on it are look-ups.
      // So the pass is spread over the sightings of any equality on the field (every search word).
      const field = expr.field;
      const values = expr.kind === 'cmp' ? [expr.value] : expr.values;
      const fieldSeen = this.host.cache.noteSeen(`postings:${field}`);
      return accessOf(base, {
        estimate: liveCount,
        slots: null,
        slotsCost: scanCost,
        materializeCost: scanCost / Math.min(Math.max(seen, fieldSeen), 64),
        materialize: () => keep(this.paths.postingsPath(this.host.buildPostings(field), values).toBits()),
      });
    }
    const predicate = base.predicate;
    return accessOf(base, {
      estimate: liveCount,
      slots: null,
      slotsCost: scanCost,
      materializeCost: scanCost / Math.min(seen, 64),
      materialize: () => keep(this.scanBits(predicate)),
    });
  }

  private scanBits(predicate: Predicate): Bitset {
    const docs = this.host.docs;
    const bits = this.bits.emptyBits();
    this.host.live.forEach((slot) => {
      if (predicate(docs[slot]!, slot)) bits.add(slot);
    });
    return bits;
  }

  /** `$or`: the union of its branches' plans; `$nor`: the live documents less that union. */
  private logicalAccess(expr: Extract<Expr, { kind: 'or' | 'nor' }>, base: AccessBase, keep: Keep): Access {
    const plans = expr.children.map((child) => this.planBranch(child.kind === 'and' ? child.children : [child]));
    const childCost = plans.reduce((sum, plan) => sum + plan.cost, 0);
    /** The branches' union written into `bits` (keep then caches it, or reuses it after this read). */
    const unionInto = (bits: Bitset): Bitset => {
      for (const plan of plans) {
        const matches = plan.run();
        if (matches.bits !== null) bits.or(matches.bits);
        else for (const slot of matches.slots!) bits.add(slot);
      }
      return bits;
    };
    const words = this.bits.words;
    if (expr.kind === 'nor') {
      return accessOf(base, {
        estimate: this.host.liveCount,
        slots: null,
        slotsCost: Infinity,
        materializeCost: childCost + 2 * words * COST.word,
        materialize: () => keep(this.bits.copyOf(this.host.live).andNot(unionInto(this.bits.scratch()))),
      });
    }
    const estimate = Math.min(
      this.host.liveCount,
      plans.reduce((sum, plan) => sum + plan.estimate, 0),
    );
    return accessOf(base, {
      estimate,
      slots: () => {
        const out: number[] = [];
        for (const plan of plans) plan.run().forEach((slot) => void out.push(slot));
        return out;
      },
      slotsCost: childCost + estimate * COST.entry,
      materializeCost: childCost + words * COST.word,
      materialize: () => keep(unionInto(this.bits.emptyBits())),
    });
  }
}
