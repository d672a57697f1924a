/**
 * Query planning for the embedded engine. A filter (normalised by filter.ts) is a conjunction of
 * clauses; each clause gets an access path from the collection's indexes (equality and `$in` on an
 * index's leading field, ranges by binary search, skip scans over a small leading field, `_id`
 * look-ups, the text and 2dsphere indexes) or is only testable per document. The planner then
 * either walks the cheapest access path and tests the other clauses on each candidate ("walk"),
 * or intersects the clauses' bitsets ("bits"), whichever its cost model says is cheaper; clause
 * bitsets come from the clause cache when the clause recurs, so totals of broad lists cost a few
 * word-wise ANDs instead of a pass over every match.
 */
import { type Scalar } from '../port.js';
import { Bitset } from './bitset.js';
import { compareValues, isPlainKey, typeRank } from './bson.js';
import { type CachedClause, type ClauseCache } from './clause-cache.js';
import { exprKey, type Expr } from './filter.js';
import { type GeoIndex } from './geo-index.js';
import { compilePredicate, type Predicate, type PredicateContext, type StoredDoc } from './predicate.js';
import { BracketEdge, type ProbeValue, type SortedIndex } from './sorted-index.js';
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

/**
 * Relative costs (roughly nanoseconds on the target machine), only their ratios matter: visiting
 * an index entry, testing a bit, one word of a bitset operation, evaluating a compiled clause, and
 * reaching a document at all (a few cache misses once the collection outgrows the CPU caches).
 */
const COST = { entry: 4, bit: 2, word: 1.5, clause: 10, doc: 150, mingo: 400, text: 40, geo: 150, seek: 800 } as const;
/** A skip scan (one range per distinct leading value) is used up to this many leading values. */
const MAX_SKIP_SCAN = 32;

/** The documents a filter matches: a bitset or an ascending list of slots. */
export class MatchSet {
  private membership: Bitset | null;

  private constructor(
    readonly bits: Bitset | null,
    readonly slots: readonly number[] | null,
    readonly size: number,
    private readonly emptyBits: (() => Bitset) | null,
  ) {
    this.membership = bits;
  }

  static ofBits(bits: Bitset, size: number): MatchSet {
    return new MatchSet(bits, null, size, null);
  }

  /** `slots` must be ascending and unique; `emptyBits` gives the (cleared) bitset `asBits` fills. */
  static ofSlots(slots: readonly number[], emptyBits: (() => Bitset) | null = null): MatchSet {
    return new MatchSet(null, slots, slots.length, emptyBits);
  }

  has(slot: number): boolean {
    return this.asBits().has(slot);
  }

  /** The matches as a bitset (built once for a slot list); do not mutate. */
  asBits(): Bitset {
    if (this.membership === null) {
      // The planner's scratch when it made this set; else sized once by the last (largest) slot:
      // grown bit by bit it was reallocated a dozen times.
      const slots = this.slots!;
      const bits = this.emptyBits?.() ?? Bitset.withCapacity(slots.length === 0 ? 0 : slots[slots.length - 1]! + 1);
      for (const s of slots) bits.add(s);
      this.membership = bits;
    }
    return this.membership;
  }

  /** Ascending slot order (natural order). */
  forEach(visit: (slot: number) => boolean | void): void {
    if (this.bits !== null) {
      this.bits.forEach(visit);
      return;
    }
    for (const slot of this.slots!) if (visit(slot) === false) return;
  }

  toArray(): number[] {
    return this.bits !== null ? this.bits.toArray() : [...this.slots!];
  }
}

const EMPTY = MatchSet.ofSlots([]);

/** One range of index positions to visit. */
type Span = readonly [from: number, to: number];

/** A clause with the ways to evaluate it. */
interface Access {
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

/**
 * A clause's access path: its own fields and its way in, written out field by field. V8 gives every
 * object made as `{ ...base, estimate, … }` (a spread plus keys the source lacks) a hidden class of
 * its own, so every read of a planned query's paths missed its inline cache.
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

interface Plan {
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

function combine(parts: readonly Uses[]): Uses {
  return { indexes: [...new Set(parts.flatMap((part) => part.indexes))].sort(), scan: parts.some((part) => part.scan) };
}

const NOTHING: Uses = { indexes: [], scan: false };

/** An index access path: positions in one sorted index, the text index, or a known slot list. */
interface IndexPath {
  estimate: number;
  slots(): number[];
  slotsCost: number;
  toBits(): Bitset;
  /** For range clauses: the family their bitsets are derived in. */
  family?: { cost: number; materialize(key: string, predicate: Predicate): Bitset };
}

export type Restriction = { field: string; values: Scalar[] } | { field: string; op: RangeOp; value: Scalar };

function predicateCost(expr: Expr): number {
  switch (expr.kind) {
    case 'and':
    case 'or':
    case 'nor':
      return expr.children.reduce((sum, child) => sum + predicateCost(child), 1);
    case 'cmp':
    case 'exists':
      return expr.field.includes('.') ? COST.mingo : COST.clause;
    case 'in':
      return expr.field.includes('.') ? COST.mingo : COST.clause + 2 * Math.min(expr.values.length, 16);
    case 'text':
      return COST.text;
    case 'geo':
      return COST.geo;
    case 'const':
      return 1;
  }
}

/** Whether an index can look a value up: non-null and not NaN (MongoDB's null and NaN rules need the matcher). */
function indexableValue(value: Scalar): boolean {
  if (value === null) return false;
  if (typeof value === 'number') return !Number.isNaN(value);
  return true;
}

type Probe = { values: ProbeValue[]; after: boolean };

/** Probe for the lowest value of `value`'s type bracket that a range can match (NaN and invalid Dates excluded). */
function bracketLow(value: Scalar): Probe {
  if (typeof value === 'number') return { values: [Number.NaN], after: true };
  if (value instanceof Date) return { values: [new Date(Number.NaN)], after: true };
  return { values: [new BracketEdge(typeRank(value), 'min')], after: false };
}

function bracketHigh(value: Scalar): Probe {
  return { values: [new BracketEdge(typeRank(value), 'max')], after: false };
}

type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';

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

/** Bitsets kept for reuse between evaluations (each is slots/8 bytes). */
const MAX_SPARE_SCRATCH = 16;

export class Planner {
  /**
   * Bitsets handed out as scratch during the current evaluation, those of clauses it did not cache,
   * and those the cache dropped during it: each reused once the evaluation is over (a set, so a
   * bitset noted twice is still handed out once).
   */
  private readonly inUse = new Set<Bitset>();
  /** Bitsets nothing refers to any more, to reuse. */
  private readonly spare: Bitset[] = [];
  private depth = 0;

  constructor(private readonly host: PlannerHost) {}

  /**
   * Runs `read` (which evaluates filters and consumes their MatchSets) and then takes back the
   * bitsets it used or the cache let go of. A bitset's words are an ArrayBuffer, memory outside
   * the JavaScript heap: fresh ones per request (125 KB each at a million documents) add up to
   * the external-memory growth that makes V8 start a full collection — a pass over the whole
   * multi-gigabyte heap — every few seconds under load.
   */
  scoped<T>(read: () => T): T {
    this.depth += 1;
    try {
      return read();
    } finally {
      this.depth -= 1;
      // A nested scope leaves the outer evaluation's scratch alone.
      if (this.depth === 0) {
        for (const bits of this.inUse) if (this.spare.length < MAX_SPARE_SCRATCH) this.spare.push(bits);
        this.inUse.clear();
      }
    }
  }

  /**
   * A bitset the cache no longer holds (evicted or replaced). The evaluation running now may still
   * read it — it can have served a clause before another clause's caching evicted it — so it is
   * reused only once that evaluation is over.
   */
  release(bits: Bitset): void {
    if (this.depth > 0) this.inUse.add(bits);
    else if (this.spare.length < MAX_SPARE_SCRATCH) this.spare.push(bits);
  }

  /** A bitset for this evaluation only: never cache it or keep it past `scoped`. */
  private scratch(from?: Bitset): Bitset {
    const bits = from === undefined ? this.emptyBits() : this.sparedOrNew(false).copyFrom(from);
    this.inUse.add(bits);
    return bits;
  }

  private get words(): number {
    return this.host.live.words.length;
  }

  /** An empty bitset of the collection's size, which the caller owns (it may cache it). */
  private emptyBits(): Bitset {
    return this.sparedOrNew(true);
  }

  /** A copy of `bits` that the caller owns. */
  private copyOf(bits: Bitset): Bitset {
    return this.sparedOrNew(false).copyFrom(bits);
  }

  /** A spare bitset large enough (cleared when asked), else a new one. */
  private sparedOrNew(clear: boolean): Bitset {
    while (this.spare.length > 0) {
      const candidate = this.spare.pop()!;
      if (candidate.words.length >= this.words) return clear ? candidate.clear() : candidate;
    }
    return new Bitset(new Uint32Array(this.words));
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
      // A copy: the matches may be this evaluation's scratch or another entry's bitset.
      cache.put(key, this.emptyBits().copyFrom(matches.asBits()), compilePredicate(expr, this.host.predicateContext), matches.size);
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

  /** The index (or postings) a clause is answered from, as `indexPath` would choose it. */
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
        const lookup = (expr.kind === 'cmp' && expr.op === '$eq' && indexableValue(expr.value)) || (expr.kind === 'in' && !expr.negated && expr.values.every(indexableValue));
        const range = expr.kind === 'cmp' && expr.op !== '$eq' && expr.op !== '$ne' && indexableValue(expr.value);
        if (expr.field === '_id' && lookup) return { indexes: ['_id_'], scan: false };
        if (expr.field.includes('.') || (!lookup && !range)) return { indexes: [], scan: true };
        const choice = this.indexFor(expr.field);
        if (choice !== null) return { indexes: [choice.index.name], scan: false };
        return lookup && host.postings(expr.field) !== undefined ? { indexes: [`postings:${expr.field}`], scan: false } : { indexes: [], scan: true };
      }
    }
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

  // -------------------------------------------------------------------------
  // Conjunctions
  // -------------------------------------------------------------------------

  private planConjunction(conjuncts: readonly Expr[]): Plan {
    const host = this.host;
    const clauses = conjuncts.filter((c) => !(c.kind === 'const' && c.value));
    if (clauses.some((c) => c.kind === 'const')) return { estimate: 0, cost: 0, run: () => EMPTY, uses: () => NOTHING };
    if (clauses.length === 0) {
      // Every document, without looking at any: no index, but no scan either.
      return { estimate: host.liveCount, cost: 0, run: () => MatchSet.ofBits(host.live, host.liveCount), uses: () => NOTHING };
    }
    const accesses = clauses.map((clause) => this.access(clause));
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
    // Walk: the cheapest slot list; each other clause is tested per candidate, by its predicate or,
    // when materialising it costs less than testing every candidate, by its bitset.
    for (const driver of accesses) {
      if (driver.slots === null) continue;
      const n = driver.estimate;
      let cost = driver.slotsCost + n * COST.entry;
      let readsDocs = false;
      const byBits = new Set<Access>();
      for (const other of accesses) {
        if (other === driver) continue;
        const viaBits = other.materializeCost + n * COST.bit;
        if (other.cached !== null || viaBits < n * other.testCost) {
          byBits.add(other);
          cost += other.cached !== null ? n * COST.bit : viaBits;
        } else {
          readsDocs = true;
          cost += n * other.testCost;
        }
      }
      if (readsDocs) cost += n * COST.doc;
      // The other clauses are tested on the driver's candidates: only the driver and the bitsets read indexes.
      options.push({ estimate, cost, run: () => this.runWalk(driver, accesses, byBits), uses: () => usesOf([driver, ...byBits]) });
    }
    // Bits: every clause's bitset, ANDed, then one popcount.
    const bitsCost = accesses.reduce((sum, a) => sum + a.materializeCost, 0) + (accesses.length + 1) * this.words * COST.word;
    options.push({ estimate, cost: bitsCost, run: () => this.runBits(accesses), uses: () => usesOf(accesses) });
    // Scan: every document against every clause.
    const scanCost = host.liveCount * (accesses.reduce((sum, a) => sum + a.testCost, 0) + COST.entry + COST.doc);
    options.push({ estimate, cost: scanCost, run: () => this.runScan(accesses), uses: () => ({ indexes: [], scan: true }) });
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
    return MatchSet.ofSlots(sortedUnique(found), () => this.scratch());
  }

  private runBits(accesses: readonly Access[]): MatchSet {
    const ordered = [...accesses].sort((a, b) => a.estimate - b.estimate);
    const first = ordered[0]!.materialize();
    const result = first.shared ? this.scratch(first.bits) : first.bits;
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
    return MatchSet.ofSlots(found, () => this.scratch());
  }

  // -------------------------------------------------------------------------
  // Access paths
  // -------------------------------------------------------------------------

  private access(expr: Expr): Access {
    const cache = this.host.cache;
    const key = exprKey(expr);
    const predicate = compilePredicate(expr, this.host.predicateContext);
    const cached = cache.get(key) ?? null;
    if (cached !== null) {
      return {
        expr,
        key,
        predicate,
        cached,
        testCost: COST.bit,
        estimate: cached.count,
        slots: () => cached.bits.toArray(),
        slotsCost: this.words * COST.word + cached.count * COST.entry,
        materializeCost: 0,
        materialize: () => ({ bits: cached.bits, shared: true }),
      };
    }
    const seen = cache.noteSeen(key);
    const testCost = predicateCost(expr);
    // Materialising pays off only when the clause recurs: its cost is spread over its sightings,
    // and the bitset is kept once a clause has been seen twice.
    const amortise = (cost: number): number => cost / Math.min(seen, 64);
    const keep = (bits: Bitset): { bits: Bitset; shared: boolean } => {
      if (seen < 2) {
        // Not kept: this evaluation's alone, reused once it is over.
        this.inUse.add(bits);
        return { bits, shared: false };
      }
      cache.put(key, bits, predicate);
      return { bits, shared: true };
    };
    const base = { expr, key, predicate, cached, testCost };

    // A search for several words matches any of them: when each word's own clause is cached (single
    // words recur, pairs rarely do), the union is a few word-wise ORs instead of a postings merge.
    if (expr.kind === 'text' && expr.terms.length > 1) {
      const parts = expr.terms.map((term) => cache.get(exprKey({ kind: 'text', terms: [term] })));
      if (parts.every((part) => part !== undefined)) {
        const union = (): Bitset => {
          const bits = this.scratch(parts[0]!.bits);
          for (let i = 1; i < parts.length; i++) bits.or(parts[i]!.bits);
          return bits;
        };
        const estimate = Math.min(this.host.liveCount, parts.reduce((sum, part) => sum + part!.count, 0));
        const materializeCost = parts.length * this.words * COST.word;
        return accessOf(base, {
          estimate,
          slots: () => union().toArray(),
          slotsCost: materializeCost + estimate * COST.entry,
          materializeCost,
          materialize: () => ({ bits: union(), shared: false }),
        });
      }
    }

    const path = this.indexPath(expr);
    if (path !== null) {
      const family = path.family;
      if (family !== undefined) {
        return accessOf(base, { estimate: path.estimate, slots: path.slots, slotsCost: path.slotsCost, materializeCost: family.cost, materialize: () => ({ bits: family.materialize(key, predicate), shared: true }) });
      }
      return accessOf(base, {
        estimate: path.estimate,
        slots: path.slots,
        slotsCost: path.slotsCost,
        materializeCost: amortise(path.slotsCost + this.words * COST.word),
        materialize: () => keep(path.toBits()),
      });
    }
    if (expr.kind === 'or' || expr.kind === 'nor') return this.logicalAccess(expr, base, keep);
    const scanCost = this.host.liveCount * (testCost + COST.entry + COST.doc);
    const postable =
      (expr.kind === 'cmp' && expr.op === '$eq' && indexableValue(expr.value)) ||
      (expr.kind === 'in' && !expr.negated && expr.values.every(indexableValue));
    if (postable && !expr.field.includes('.') && expr.field !== '_id') {
      // One pass builds the postings of every value of the field; later clauses on it are look-ups.
      // So the pass is spread over the sightings of any equality on the field (every search word).
      const field = expr.field;
      const values = expr.kind === 'cmp' ? [expr.value] : expr.values;
      const fieldSeen = cache.noteSeen(`postings:${field}`);
      return accessOf(base, {
        estimate: this.host.liveCount,
        slots: null,
        slotsCost: scanCost,
        materializeCost: scanCost / Math.min(Math.max(seen, fieldSeen), 64),
        materialize: () => keep(this.postingsPath(this.host.buildPostings(field), values).toBits()),
      });
    }
    return accessOf(base, {
      estimate: this.host.liveCount,
      slots: null,
      slotsCost: scanCost,
      materializeCost: amortise(scanCost),
      materialize: () => keep(this.scanBits(predicate)),
    });
  }

  private scanBits(predicate: Predicate): Bitset {
    const docs = this.host.docs;
    const bits = this.emptyBits();
    this.host.live.forEach((slot) => {
      if (predicate(docs[slot]!, slot)) bits.add(slot);
    });
    return bits;
  }

  private logicalAccess(
    expr: Extract<Expr, { kind: 'or' | 'nor' }>,
    base: AccessBase,
    keep: (bits: Bitset) => { bits: Bitset; shared: boolean },
  ): Access {
    const plans = expr.children.map((child) => this.planConjunction(child.kind === 'and' ? child.children : [child]));
    const childCost = plans.reduce((sum, plan) => sum + plan.cost, 0);
    /** The branches' union written into `bits` (keep then caches it, or reuses it after this evaluation). */
    const unionInto = (bits: Bitset): Bitset => {
      for (const plan of plans) {
        const matches = plan.run();
        if (matches.bits !== null) bits.or(matches.bits);
        else for (const slot of matches.slots!) bits.add(slot);
      }
      return bits;
    };
    if (expr.kind === 'nor') {
      return accessOf(base, {
        estimate: this.host.liveCount,
        slots: null,
        slotsCost: Infinity,
        materializeCost: childCost + 2 * this.words * COST.word,
        materialize: () => keep(this.copyOf(this.host.live).andNot(unionInto(this.scratch()))),
      });
    }
    const estimate = Math.min(this.host.liveCount, plans.reduce((sum, plan) => sum + plan.estimate, 0));
    return accessOf(base, {
      estimate,
      slots: () => {
        const out: number[] = [];
        for (const plan of plans) plan.run().forEach((slot) => void out.push(slot));
        return out;
      },
      slotsCost: childCost + estimate * COST.entry,
      materializeCost: childCost + this.words * COST.word,
      materialize: () => keep(unionInto(this.emptyBits())),
    });
  }

  /** An index access path for a clause, or null when none applies. */
  private indexPath(expr: Expr): IndexPath | null {
    const host = this.host;
    const ofSlots = (slots: number[]): IndexPath => ({
      estimate: slots.length,
      slots: () => slots,
      slotsCost: slots.length * COST.entry,
      toBits: () => {
        const bits = this.emptyBits();
        for (const slot of slots) bits.add(slot);
        return bits;
      },
    });

    if (expr.kind === 'text') {
      const index = host.textIndex;
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
          const bits = this.emptyBits();
          for (const slot of slots()) bits.add(slot);
          return bits;
        },
      };
    }
    if (expr.kind === 'geo') {
      const index = host.geoIndexFor(expr.condition.field);
      if (index === undefined) return null;
      return ofSlots(index.within(expr.condition.center, expr.condition.radius).slots);
    }
    if (expr.kind !== 'cmp' && expr.kind !== 'in') return null;
    if (expr.field === '_id') {
      const values = expr.kind === 'cmp' && expr.op === '$eq' ? [expr.value] : expr.kind === 'in' && !expr.negated ? expr.values : null;
      if (values === null) return null;
      const slots: number[] = [];
      for (const value of values) {
        const slot = typeof value === 'number' ? host.slotOfId(value) : undefined;
        if (slot !== undefined) slots.push(slot);
      }
      return ofSlots(slots);
    }
    if (expr.field.includes('.')) return null;

    let values: Scalar[] | null = null;
    let range: { op: RangeOp; value: Scalar } | null = null;
    if (expr.kind === 'cmp' && expr.op === '$eq' && indexableValue(expr.value)) values = [expr.value];
    else if (expr.kind === 'in' && !expr.negated && expr.values.every(indexableValue)) values = expr.values;
    else if (expr.kind === 'cmp' && expr.op !== '$eq' && expr.op !== '$ne' && indexableValue(expr.value)) {
      range = { op: expr.op, value: expr.value };
    } else return null;

    // Equality on a unique field (a slug): one map lookup per value instead of two seeks. Only
    // plain keys (strings, numbers): the values the unique index keys as its documents' scalars.
    const owner = values === null ? undefined : host.uniqueOwner(expr.field);
    if (owner !== undefined && values!.every(isPlainKey)) {
      const slots = new Set<number>();
      for (const value of values!) {
        const id = owner(value);
        const slot = id === undefined ? undefined : host.slotOfId(id);
        if (slot !== undefined) slots.add(slot);
      }
      return ofSlots([...slots].sort((a, b) => a - b));
    }

    const choice = this.indexFor(expr.field);
    if (choice === null) {
      const postings = values === null ? undefined : host.postings(expr.field);
      return postings === undefined ? null : this.postingsPath(postings, values!);
    }
    const { index, prefixes } = choice;
    const seek = (prefix: unknown[], probe: Probe) => index.seek([...prefix, ...probe.values], probe.after);
    const spans: Span[] = [];
    for (const prefix of prefixes) {
      if (values !== null) {
        for (const value of values) spans.push([seek(prefix, { values: [value], after: false }), seek(prefix, { values: [value], after: true })]);
      } else {
        const { lo, hi } = rangeProbes(range!.op, range!.value);
        spans.push([seek(prefix, lo), seek(prefix, hi)]);
      }
    }
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
        const bits = this.copyOf(host.live);
        let position = 0;
        for (const [from, to] of [...spans].sort((a, b) => a[0] - b[0])) {
          index.mark(position, from, bits, false);
          position = Math.max(position, to);
        }
        index.mark(position, index.size, bits, false);
        return bits;
      }
      const bits = this.emptyBits();
      for (const [from, to] of spans) index.mark(from, to, bits, true);
      return bits;
    };
    const path: IndexPath = { estimate, slots, slotsCost: spans.length * 2 * COST.seek + estimate * COST.entry, toBits };
    if (range === null) return path;
    // Written out rather than `{ ...path, family }`: see accessOf.
    return { estimate, slots, slotsCost: path.slotsCost, toBits, family: this.rangeFamily(index, prefixes, expr.field, range, estimate, toBits) };
  }

  private postingsPath(postings: ValuePostings, values: readonly Scalar[]): IndexPath {
    const found = [...new Set(values.map((value) => postings.lookup(value)))].filter((p) => p !== undefined);
    const estimate = found.reduce((sum, posting) => sum + posting.size, 0);
    return {
      estimate,
      slots: () => (found.length === 1 ? found[0]!.slots() : found.flatMap((posting) => posting.slots())),
      slotsCost: estimate * COST.entry,
      toBits: () => {
        const bits = this.emptyBits();
        for (const posting of found) posting.orInto(bits);
        return bits;
      },
    };
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
    const direct = Math.min(estimate, index.size - estimate) * COST.entry + this.words * COST.word;
    // The nearest member by value where values have a distance (Dates, numbers), else the latest.
    let nearest = members[members.length - 1];
    const numeric = (value: unknown): number | null => (value instanceof Date ? value.getTime() : typeof value === 'number' ? value : null);
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
          const before = edge(nearest!.bound, nearest!.op!, prefix);
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
      patch = size * (singleEntry ? COST.bit : COST.entry + COST.clause) + this.words * COST.word;
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
          bits = recycled !== undefined ? recycled.bits.copyFrom(nearest.bits) : this.copyOf(nearest.bits);
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

  /**
   * The index serving look-ups on `field`: one whose leading field it is (one prefix, the empty
   * one), else one where it comes second after a leading field of few distinct values (a skip
   * scan, one prefix per leading value).
   */
  private indexFor(field: string): { index: SortedIndex; prefixes: unknown[][] } | null {
    let best: SortedIndex | null = null;
    for (const index of this.host.sortedIndexes) {
      if (index.fields[0] === field) return { index, prefixes: [[]] };
      if (index.fields[1] === field && index.distinctLeading <= MAX_SKIP_SCAN) {
        if (best === null || index.distinctLeading < best.distinctLeading) best = index;
      }
    }
    return best === null ? null : { index: best, prefixes: best.leadingValues().map((value) => [value]) };
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

/** Ascending slots without repeats. */
export function sortedUnique(slots: number[]): number[] {
  if (slots.length < 2) return slots;
  const typed = Int32Array.from(slots).sort();
  const out: number[] = [typed[0]!];
  for (let i = 1; i < typed.length; i++) if (typed[i] !== typed[i - 1]) out.push(typed[i]!);
  return out;
}
