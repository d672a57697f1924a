/**
 * Validates a filter against the closed query language of port.ts and normalises it into an
 * expression tree the embedded engine plans and evaluates (planner.ts, predicate.ts). Whatever is
 * refused here is refused before any document is read, so a filter that runs here also runs (with
 * the same meaning) on MongoDB.
 */
import { UnsupportedQueryError } from '../../errors.js';
import { searchWords } from '../../lib/text.js';
import { type Filter, type Scalar, type Sort } from '../port.js';
import { encodeKey, isPlainObject } from './bson.js';
import { type LngLat } from './geo-index.js';

export interface GeoCondition {
  field: string;
  center: LngLat;
  radius: number;
}

export type ComparisonOperator = '$eq' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte';

/**
 * A normalised filter. Each field operator is its own node (MongoDB evaluates the operators of one
 * field independently, also on arrays), `$all` is an `and` of `$eq`s (MongoDB's definition), and
 * `$gte`/`$lte` null are `$eq` null (MongoDB treats null and missing alike there).
 */
export type Expr =
  | { kind: 'and'; children: Expr[] }
  | { kind: 'or'; children: Expr[] }
  | { kind: 'nor'; children: Expr[] }
  | { kind: 'cmp'; field: string; op: ComparisonOperator; value: Scalar }
  | { kind: 'in'; field: string; values: Scalar[]; negated: boolean }
  | { kind: 'exists'; field: string; present: boolean }
  | { kind: 'text'; terms: string[] }
  | { kind: 'geo'; condition: GeoCondition }
  | { kind: 'const'; value: boolean };

const COMPARISON_OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte']);
const LIST_OPERATORS = new Set(['$in', '$nin', '$all']);
const TEXT_KEYS = new Set(['$search', '$language', '$caseSensitive', '$diacriticSensitive']);

/** Refuses a query or write the engine does not support (UnsupportedQueryError). */
export function refuse(message: string): never {
  throw new UnsupportedQueryError(message);
}

function display(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value instanceof Date) return `Date(${value.toISOString()})`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what JSON cannot write: a function, a symbol
    return JSON.stringify(value) ?? String(value);
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a cycle or a BigInt: its default text will do
    return String(value);
  }
}

export function isScalar(value: unknown): value is Scalar {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    default:
      return value instanceof Date && !Number.isNaN(value.getTime());
  }
}

function checkScalar(value: unknown, where: string): Scalar {
  if (value === undefined) {
    // The driver would send undefined as null (or drop it with ignoreUndefined); refuse rather than guess.
    refuse(`${where}: undefined is not a query value; use null or omit the condition.`);
  }
  if (!isScalar(value)) refuse(`${where}: ${display(value)} is not a supported value (string, number, boolean, Date or null).`);
  return value;
}

/** A plain dotted field path: no operator segment, no empty segment. */
export function checkFieldPath(path: string, where: string): void {
  // Most paths are one plain segment; only dotted ones need splitting.
  if (path !== '' && path.charCodeAt(0) !== 36 && !path.includes('.')) return;
  if (path === '' || path.split('.').some((segment) => segment === '' || segment.startsWith('$'))) {
    refuse(`${where}: ${display(path)} is not a plain field path.`);
  }
}

interface WalkState {
  textCount: number;
}

/** `textAllowed`: top level or directly in a top-level $and. */
interface Position {
  textAllowed: boolean;
  path: string;
}

/** Validates `filter` and returns it as an expression (always an `and` at the root). */
export function parseFilter(filter: Filter): Expr {
  if (!isPlainObject(filter)) refuse(`A filter must be a plain object, got ${display(filter)}.`);
  const state: WalkState = { textCount: 0 };
  return { kind: 'and', children: walkObject(filter, { textAllowed: true, path: 'filter' }, state, true) };
}

function walkObject(filter: Record<string, unknown>, position: Position, state: WalkState, topLevel: boolean): Expr[] {
  const conjuncts: Expr[] = [];
  for (const [key, value] of Object.entries(filter)) {
    const where = `${position.path}.${key}`;
    if (key === '$and' || key === '$or' || key === '$nor') {
      const children = checkFilterList(value, where);
      const childPosition: Position = key === '$and' ? { textAllowed: topLevel, path: where } : { textAllowed: false, path: where };
      const parsed = children.map((child, i) => andOf(walkObject(child, { ...childPosition, path: `${where}[${i}]` }, state, false)));
      if (key === '$and') {
        for (const child of parsed) conjuncts.push(...(child.kind === 'and' ? child.children : [child]));
      } else {
        conjuncts.push({ kind: key === '$or' ? 'or' : 'nor', children: parsed });
      }
    } else if (key === '$text') {
      conjuncts.push(walkText(value, position, state, where));
    } else if (key.startsWith('$')) {
      refuse(`${where}: the operator ${key} is not supported (allowed at this level: $and, $or, $nor, $text).`);
    } else {
      checkFieldPath(key, where);
      conjuncts.push(...walkField(key, value, where));
    }
  }
  return conjuncts;
}

function andOf(children: Expr[]): Expr {
  return children.length === 1 ? children[0]! : { kind: 'and', children };
}

function checkFilterList(value: unknown, where: string): Array<Record<string, unknown>> {
  // MongoDB: "$and/$or/$nor must be a nonempty array" of objects.
  if (!Array.isArray(value) || value.length === 0) refuse(`${where} must be a non-empty array of filters.`);
  for (const child of value) {
    if (!isPlainObject(child)) refuse(`${where} must contain only filter objects, got ${display(child)}.`);
  }
  return value as Array<Record<string, unknown>>;
}

function walkText(value: unknown, position: Position, state: WalkState, where: string): Expr {
  state.textCount += 1;
  // MongoDB: "Too many text expressions".
  if (state.textCount > 1) refuse('A filter may contain only one $text expression.');
  if (!position.textAllowed) {
    refuse(`${where}: $text is only allowed at the top level of a filter or directly inside a top-level $and.`);
  }
  if (!isPlainObject(value)) refuse(`${where} must be an object with $search.`);
  for (const key of Object.keys(value)) {
    if (!TEXT_KEYS.has(key)) refuse(`${where}: unknown $text option ${key}.`);
  }
  const search = value.$search;
  if (typeof search !== 'string') refuse(`${where}.$search must be a string.`);
  if (value.$language !== undefined && value.$language !== 'english') {
    refuse(`${where}.$language: only "english" is supported.`);
  }
  if (value.$caseSensitive !== undefined && value.$caseSensitive !== false) {
    refuse(`${where}.$caseSensitive: only case-insensitive search is supported.`);
  }
  if (value.$diacriticSensitive !== undefined && value.$diacriticSensitive !== false) {
    refuse(`${where}.$diacriticSensitive: only diacritic-insensitive search is supported.`);
  }
  // MongoDB supports phrases and negations; we never emit them, so refuse instead of approximating.
  if (search.includes('"')) refuse(`${where}.$search: phrases ("…") are not supported by the embedded engine.`);
  // fts_query_parser.cpp: a "-" starts a negation when it follows whitespace (or starts the
  // search) and is directly followed by a word or phrase.
  if (/(?:^|[ \n\v\f\r])-+[^ \n\v\f\r-]/.test(search)) {
    refuse(`${where}.$search: negated terms (-word) are not supported by the embedded engine.`);
  }
  // A search of stop words only has no term, and MongoDB then matches nothing.
  return { kind: 'text', terms: searchWords(search) };
}

function walkField(field: string, value: unknown, where: string): Expr[] {
  if (!isPlainObject(value)) {
    if (value instanceof RegExp) refuse(`${where}: regular expressions are not supported.`);
    if (Array.isArray(value)) refuse(`${where}: whole-array equality is not supported; use $all or $in.`);
    return [{ kind: 'cmp', field, op: '$eq', value: checkScalar(value, where) }];
  }
  const operators = Object.keys(value);
  if (operators.length === 0) refuse(`${where}: an empty condition (embedded-document equality) is not supported.`);
  const conjuncts: Expr[] = [];
  for (const operator of operators) {
    const argument = value[operator];
    const at = `${where}.${operator}`;
    if (!operator.startsWith('$')) {
      refuse(`${where}: embedded-document equality is not supported (found field ${operator}).`);
    }
    if (COMPARISON_OPERATORS.has(operator)) {
      const scalar = checkScalar(argument, at);
      // MongoDB treats null and missing alike for $eq/$gte/$lte (ComparisonMatchExpression); within
      // the null bracket both bounds mean $eq.
      const op = scalar === null && (operator === '$gte' || operator === '$lte') ? '$eq' : (operator as ComparisonOperator);
      conjuncts.push({ kind: 'cmp', field, op, value: scalar });
    } else if (LIST_OPERATORS.has(operator)) {
      if (!Array.isArray(argument)) refuse(`${at} needs an array.`);
      // The element's path is spelled out only for a refusal: a near-me filter lists thousands of venues.
      const values = argument.map((element: unknown, i) => (isScalar(element) ? element : checkScalar(element, `${at}[${i}]`)));
      if (operator === '$all') {
        // MongoDB defines $all as an $and of equalities (so it also matches a scalar field), and
        // an empty $all matches nothing.
        if (values.length === 0) conjuncts.push({ kind: 'const', value: false });
        for (const element of values) conjuncts.push({ kind: 'cmp', field, op: '$eq', value: element });
      } else {
        conjuncts.push({ kind: 'in', field, values, negated: operator === '$nin' });
      }
    } else if (operator === '$exists') {
      if (typeof argument !== 'boolean') refuse(`${at} needs true or false.`);
      conjuncts.push({ kind: 'exists', field, present: argument });
    } else if (operator === '$geoWithin') {
      conjuncts.push({ kind: 'geo', condition: checkGeoWithin(field, argument, at) });
    } else {
      refuse(`${at}: the operator ${operator} is not supported by the storage port.`);
    }
  }
  return conjuncts;
}

function checkGeoWithin(field: string, argument: unknown, where: string): GeoCondition {
  if (!isPlainObject(argument) || Object.keys(argument).length !== 1 || !('$centerSphere' in argument)) {
    refuse(`${where}: only { $centerSphere: [[lng, lat], radians] } is supported.`);
  }
  const shape = argument.$centerSphere;
  if (!Array.isArray(shape) || shape.length !== 2 || !Array.isArray(shape[0]) || shape[0].length !== 2) {
    refuse(`${where}.$centerSphere must be [[lng, lat], radians].`);
  }
  const [lng, lat] = shape[0] as unknown[];
  const radius = shape[1] as unknown;
  if (typeof lng !== 'number' || typeof lat !== 'number' || !(lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90)) {
    refuse(`${where}.$centerSphere: the center must be a [lng, lat] pair within [-180, 180] × [-90, 90].`);
  }
  if (typeof radius !== 'number' || !Number.isFinite(radius) || radius < 0) {
    refuse(`${where}.$centerSphere: the radius must be a non-negative number of radians.`);
  }
  return { field, center: [lng, lat], radius };
}

/**
 * A canonical key of an expression: equal for expressions that match the same documents by
 * construction (same operators and values; `$in` lists as sets; `and`/`or` children as sets), so
 * materialised results can be reused across requests that spell a clause differently.
 */
export function exprKey(expr: Expr): string {
  switch (expr.kind) {
    case 'and':
    case 'or':
    case 'nor':
      return `${expr.kind}(${[...new Set(expr.children.map(exprKey))].sort().join(',')})`;
    case 'cmp':
      return `${JSON.stringify(expr.field)}${expr.op}${encodeKey(expr.value)}`;
    case 'in':
      return `${JSON.stringify(expr.field)}${expr.negated ? '$nin' : '$in'}[${[...new Set(expr.values.map(encodeKey))].sort().join(',')}]`;
    case 'exists':
      return `${JSON.stringify(expr.field)}$exists${expr.present}`;
    case 'text':
      return `$text[${[...new Set(expr.terms)].sort().join(',')}]`;
    case 'geo':
      return `${JSON.stringify(expr.condition.field)}$geo[${expr.condition.center.join(',')},${expr.condition.radius}]`;
    case 'const':
      return expr.value ? 'true' : 'false';
  }
}

/** Sort keys must be plain field paths with direction 1 or -1 (no $meta, no duplicates). */
export function checkSort(sort: unknown): Sort {
  if (sort === undefined) return [];
  if (!Array.isArray(sort)) refuse(`sort must be an array of [field, direction] pairs, got ${display(sort)}.`);
  const seen = new Set<string>();
  return sort.map((entry, i) => {
    if (!Array.isArray(entry) || entry.length !== 2) refuse(`sort[${i}] must be a [field, direction] pair.`);
    const [field, direction] = entry as unknown[];
    if (typeof field !== 'string') refuse(`sort[${i}]: the field must be a string.`);
    checkFieldPath(field, `sort[${i}]`);
    if (direction !== 1 && direction !== -1) refuse(`sort[${i}]: the direction must be 1 or -1.`);
    if (seen.has(field)) refuse(`sort[${i}]: the field ${field} appears twice.`);
    seen.add(field);
    return [field, direction] as [string, 1 | -1];
  });
}

/** skip/limit: non-negative integers; limit 0 means no limit (as in MongoDB). */
export function checkCount(value: unknown, name: 'skip' | 'limit'): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    refuse(`${name} must be a non-negative integer, got ${display(value)}.`);
  }
  return value;
}
