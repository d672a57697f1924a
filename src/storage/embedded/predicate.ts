/**
 * Compiles a normalised filter (filter.ts) into a plain JavaScript closure with MongoDB's matching
 * semantics, so evaluating a document costs a few property reads instead of a generic matcher
 * walk. Top-level fields are compiled here; a dotted path (arrays along it, numeric segments, …)
 * is delegated to mingo for that one condition, whose semantics the contract suite pins down.
 */
import { createRequire } from 'node:module';
import type * as Mingo from 'mingo';
import { type Scalar } from '../port.js';
import { compareValues, typeRank } from './bson.js';
import { type DateColumn } from './date-column.js';
import { type ComparisonOperator, type Expr } from './filter.js';
import { pointsForMatching, withinCap } from './geo-index.js';

export type StoredDoc = Record<string, unknown> & { _id: number };
export type Predicate = (doc: StoredDoc, slot: number) => boolean;

export interface PredicateContext {
  /** Whether the document in `slot` holds any of the terms in the collection's text index. */
  hasAnyTerm(slot: number, terms: readonly string[]): boolean;
  /** The Date column of a top-level field (created on first use), for range tests without reading documents. */
  dateColumn?(field: string): DateColumn;
}

const always: Predicate = () => true;
const never: Predicate = () => false;

/** Reads a dotted path through embedded documents only (enough for geometry fields). */
export function valueAt(doc: unknown, path: string): unknown {
  if (!path.includes('.')) return doc === null || typeof doc !== 'object' || Array.isArray(doc) ? undefined : (doc as Record<string, unknown>)[path];
  let value = doc;
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

export function compilePredicate(expr: Expr, context: PredicateContext): Predicate {
  switch (expr.kind) {
    case 'and': {
      const parts = expr.children.map((child) => compilePredicate(child, context));
      if (parts.length === 0) return always;
      if (parts.length === 1) return parts[0]!;
      if (parts.length === 2) {
        const [a, b] = parts as [Predicate, Predicate];
        return (doc, slot) => a(doc, slot) && b(doc, slot);
      }
      return (doc, slot) => {
        for (const part of parts) if (!part(doc, slot)) return false;
        return true;
      };
    }
    case 'or': {
      const parts = expr.children.map((child) => compilePredicate(child, context));
      return (doc, slot) => {
        for (const part of parts) if (part(doc, slot)) return true;
        return false;
      };
    }
    case 'nor': {
      const parts = expr.children.map((child) => compilePredicate(child, context));
      return (doc, slot) => {
        for (const part of parts) if (part(doc, slot)) return false;
        return true;
      };
    }
    case 'const':
      return expr.value ? always : never;
    case 'text': {
      const terms = expr.terms;
      if (terms.length === 0) return never;
      return (_doc, slot) => context.hasAnyTerm(slot, terms);
    }
    case 'geo': {
      const { field, center, radius } = expr.condition;
      return (doc) => withinCap(pointsForMatching(valueAt(doc, field)), center, radius);
    }
    case 'cmp':
    case 'in':
    case 'exists':
      if (expr.field.includes('.')) return mingoLeaf(expr);
      if (expr.kind === 'cmp' && expr.value instanceof Date && context.dateColumn !== undefined && expr.op !== '$eq' && expr.op !== '$ne') {
        return dateRangeLeaf(context.dateColumn(expr.field), expr.op, expr.value, topLevelLeaf(expr));
      }
      return topLevelLeaf(expr);
  }
}

type Leaf = Extract<Expr, { kind: 'cmp' | 'in' | 'exists' }>;

/** A Date range test read from the column; documents holding an array there take the full test. */
function dateRangeLeaf(column: DateColumn, op: Exclude<ComparisonOperator, '$eq' | '$ne'>, operand: Date, full: Predicate): Predicate {
  const time = operand.getTime();
  const arrays = column.arrays;
  const test =
    op === '$gt' ? (t: number) => t > time : op === '$gte' ? (t: number) => t >= time : op === '$lt' ? (t: number) => t < time : (t: number) => t <= time;
  return (doc, slot) => {
    const t = column.values[slot]!;
    // NaN (no valid Date there) compares false, like the matcher, unless the field holds an array.
    if (t === t) return test(t);
    return arrays.has(slot) && full(doc, slot);
  };
}

/**
 * mingo, loaded on the first dotted-path condition rather than at start: its entry point loads every
 * operator it has (~0.2 s), and the service's own queries rarely reach it. Loaded through its
 * CommonJS build, which is also what Node's resolution picks for an `import` of it.
 */
let mingo: typeof Mingo | null = null;
const loadMingo = (): typeof Mingo => (mingo ??= createRequire(import.meta.url)('mingo') as typeof Mingo);

function mingoLeaf(expr: Leaf): Predicate {
  let condition: Record<string, unknown>;
  if (expr.kind === 'cmp') condition = { [expr.op]: expr.value };
  else if (expr.kind === 'in') condition = { [expr.negated ? '$nin' : '$in']: expr.values };
  else condition = { $exists: expr.present };
  const query = new (loadMingo().Query)({ [expr.field]: condition }, { scriptEnabled: false });
  return (doc) => query.test(doc);
}

/** Tests one value (a field's value, or one element of an array field) against a non-array operand. */
type ValueTest = (value: unknown) => boolean;

/** MongoDB's equality for a query scalar: same type bracket and equal (numbers by value, Dates by time). */
function equalsTest(operand: Scalar): ValueTest {
  if (operand === null) return (value) => value === null || value === undefined;
  if (typeof operand === 'string' || typeof operand === 'boolean') return (value) => value === operand;
  if (typeof operand === 'number') {
    if (Number.isNaN(operand)) return (value) => typeof value === 'number' && Number.isNaN(value);
    return (value) => value === operand;
  }
  const time = operand.getTime();
  return (value) => value instanceof Date && value.getTime() === time;
}

/**
 * MongoDB's $gt/$gte/$lt/$lte: only values of the operand's type bracket compare; NaN equals
 * only NaN and is neither greater nor less than anything (ComparisonMatchExpressionBase).
 */
function rangeTest(op: Exclude<ComparisonOperator, '$eq' | '$ne'>, operand: Exclude<Scalar, null>): ValueTest {
  const accepts = op === '$gt' ? (c: number) => c > 0 : op === '$gte' ? (c: number) => c >= 0 : op === '$lt' ? (c: number) => c < 0 : (c: number) => c <= 0;
  if (operand instanceof Date) {
    const time = operand.getTime();
    return (value) => value instanceof Date && accepts(value.getTime() - time);
  }
  if (typeof operand === 'number') {
    if (Number.isNaN(operand)) {
      return op === '$gte' || op === '$lte' ? (value) => typeof value === 'number' && Number.isNaN(value) : () => false;
    }
    return (value) => typeof value === 'number' && !Number.isNaN(value) && accepts(value < operand ? -1 : value > operand ? 1 : 0);
  }
  const rank = typeRank(operand);
  return (value) => typeRank(value) === rank && accepts(compareValues(value, operand));
}

/** A field matches when its value, or (for an array) the array itself or any element, passes. */
function onField(field: string, test: ValueTest): Predicate {
  // A stored document is a plain object: only names Object.prototype also has need the own-property check.
  if (field in Object.prototype) {
    return (doc) => {
      const value = Object.hasOwn(doc, field) ? doc[field] : undefined;
      if (!Array.isArray(value)) return test(value);
      for (const element of value) if (test(element)) return true;
      return false;
    };
  }
  return (doc) => {
    const value = doc[field];
    if (!Array.isArray(value)) return test(value);
    for (const element of value) if (test(element)) return true;
    return false;
  };
}

function topLevelLeaf(expr: Leaf): Predicate {
  const field = expr.field;
  if (expr.kind === 'exists') {
    const present = expr.present;
    return (doc) => Object.hasOwn(doc, field) === present;
  }
  if (expr.kind === 'in') {
    const tests = expr.values.map(equalsTest);
    // An array holding null is "equal to null" through its element; an empty array is not.
    const matches = onField(field, tests.length === 1 ? tests[0]! : (value) => tests.some((test) => test(value)));
    if (tests.length === 0) return expr.negated ? always : never;
    return expr.negated ? (doc, slot) => !matches(doc, slot) : matches;
  }
  const { op, value } = expr;
  if (op === '$eq' || op === '$ne') {
    const matches = onField(field, equalsTest(value));
    return op === '$eq' ? matches : (doc, slot) => !matches(doc, slot);
  }
  // filter.ts turned $gte/$lte null into $eq; $gt/$lt null match nothing (nothing is above or below null).
  if (value === null) return never;
  return onField(field, rangeTest(op, value));
}
