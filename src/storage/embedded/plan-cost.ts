/**
 * The planner's cost model: what testing, reading and combining clauses costs, and what each way
 * of running a conjunction — walking one clause's slots, ANDing every clause's bitset, or scanning
 * every document — costs in total. Only the ratios between costs matter.
 */
// Type-only: clause-access.ts imports this module, and an emitted import back would make a cycle.
import type { Access } from './clause-access.js';
import { type Expr } from './filter.js';

/**
 * Relative costs (roughly nanoseconds on the target machine), only their ratios matter: visiting
 * an index entry, testing a bit, one word of a bitset operation, evaluating a compiled clause, and
 * reaching a document at all (a few cache misses once the collection outgrows the CPU caches).
 */
export const COST = { entry: 4, bit: 2, word: 1.5, clause: 10, doc: 150, mingo: 400, text: 40, geo: 150, seek: 800 } as const;

/** Cost of testing one document against a clause with its compiled predicate. */
export function predicateCost(expr: Expr): number {
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

/**
 * Walking `driver`'s slots: each other clause is tested per candidate, by its predicate or, when
 * materialising it costs less than testing every candidate, by its bitset (`byBits`, filled here).
 * A cached clause is always tested by its bitset.
 */
export function walkCost(driver: Access, accesses: readonly Access[], byBits: Set<Access>): number {
  const n = driver.estimate;
  let cost = driver.slotsCost + n * COST.entry;
  let readsDocs = false;
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
  return cost;
}

/** Every clause's bitset, ANDed (`words` words each), then one popcount. */
export function bitsCost(accesses: readonly Access[], words: number): number {
  return accesses.reduce((sum, a) => sum + a.materializeCost, 0) + (accesses.length + 1) * words * COST.word;
}

/** Every one of `liveCount` documents tested against every clause. */
export function scanCost(accesses: readonly Access[], liveCount: number): number {
  return liveCount * (accesses.reduce((sum, a) => sum + a.testCost, 0) + COST.entry + COST.doc);
}
