/**
 * MongoDB's value ordering and key rules for the values our documents hold (BSON types that have a
 * JavaScript counterpart): used for sorting and for index keys.
 */
import { deepFreeze } from '../../lib/freeze.js';

/**
 * The key MongoDB generates for an empty array (BSON undefined). It sorts before null, so documents
 * whose array is empty come first in an ascending sort, before those where the field is missing.
 */
export const EMPTY_ARRAY_KEY: unique symbol = Symbol('empty-array');

export type KeyValue = unknown;

/** BSON canonical type ranks (mongo/bson/bsontypes.cpp canonicalizeBSONType). */
export function typeRank(value: unknown): number {
  if (value === EMPTY_ARRAY_KEY) return 0;
  if (value === null || value === undefined) return 5;
  if (typeof value === 'number' || typeof value === 'bigint') return 10;
  if (typeof value === 'string') return 15;
  if (Array.isArray(value)) return 25;
  if (typeof value === 'boolean') return 40;
  if (value instanceof Date) return 45;
  if (value instanceof RegExp) return 50;
  if (typeof value === 'object') return 20;
  return 127;
}

/**
 * Binary (UTF-8 byte) order, which is MongoDB's order for strings without collation. JavaScript
 * compares UTF-16 code units, which disagrees for astral characters versus U+E000–U+FFFF; the
 * fix-up below maps code units so their order matches code point (= UTF-8) order.
 */
export function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x += x >= 0xe000 ? -0x800 : 0x2000;
      y += y >= 0xe000 ? -0x800 : 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function compareNumbers(a: number, b: number): number {
  // MongoDB orders NaN before every other number.
  const aNaN = Number.isNaN(a);
  const bNaN = Number.isNaN(b);
  if (aNaN || bNaN) return aNaN === bNaN ? 0 : aNaN ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** MongoDB's total order over values (BSONElement::compareElements without collation). */
export function compareValues(a: unknown, b: unknown): number {
  // Fast paths for the key types indexes hold most (Dates, numbers, strings), same results as below.
  if (a instanceof Date && b instanceof Date) return compareNumbers(a.getTime(), b.getTime());
  if (typeof a === 'number' && typeof b === 'number') return compareNumbers(a, b);
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA < rankB ? -1 : 1;
  switch (rankA) {
    case 0:
    case 5:
      return 0;
    case 10:
      return compareNumbers(Number(a), Number(b));
    case 15:
      return compareStrings(a as string, b as string);
    case 40:
      return a === b ? 0 : a === false ? -1 : 1;
    case 45:
      return compareNumbers((a as Date).getTime(), (b as Date).getTime());
    case 25:
      return compareSequences(a as unknown[], b as unknown[]);
    case 20:
      return compareObjects(a as Record<string, unknown>, b as Record<string, unknown>);
    case 50:
      return compareStrings(String(a), String(b));
    default:
      return 0;
  }
}

function compareSequences(a: readonly unknown[], b: readonly unknown[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Embedded documents compare element by element: type, then field name, then value. */
function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const entriesA = Object.entries(a);
  const entriesB = Object.entries(b);
  const length = Math.min(entriesA.length, entriesB.length);
  for (let i = 0; i < length; i++) {
    const [keyA, valueA] = entriesA[i]!;
    const [keyB, valueB] = entriesB[i]!;
    const rankA = typeRank(valueA);
    const rankB = typeRank(valueB);
    if (rankA !== rankB) return rankA < rankB ? -1 : 1;
    const byName = compareStrings(keyA, keyB);
    if (byName !== 0) return byName;
    const byValue = compareValues(valueA, valueB);
    if (byValue !== 0) return byValue;
  }
  return entriesA.length === entriesB.length ? 0 : entriesA.length < entriesB.length ? -1 : 1;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The key values a document yields for a field path, as MongoDB's index key generation does: an
 * array at the end of the path yields each element (an empty one yields EMPTY_ARRAY_KEY), arrays
 * along the path are traversed, and a missing field yields null.
 */
export function keyValuesAt(doc: unknown, path: string): KeyValue[] {
  const out: KeyValue[] = [];
  if (!path.includes('.')) collect(doc, [path], 0, out);
  else collect(doc, path.split('.'), 0, out);
  return out.length === 0 ? [null] : out;
}

function collect(value: unknown, segments: readonly string[], index: number, out: KeyValue[]): void {
  if (index === segments.length) {
    if (Array.isArray(value)) {
      if (value.length === 0) out.push(EMPTY_ARRAY_KEY);
      else for (const element of value) out.push(element === undefined ? null : element);
    } else {
      out.push(value === undefined ? null : value);
    }
    return;
  }
  const segment = segments[index]!;
  if (Array.isArray(value)) {
    if (/^\d+$/.test(segment)) {
      collect(value[Number(segment)], segments, index + 1, out);
      return;
    }
    for (const element of value) {
      if (isPlainObject(element)) collect(element[segment], segments, index + 1, out);
    }
    return;
  }
  if (isPlainObject(value)) {
    collect(value[segment], segments, index + 1, out);
    return;
  }
  out.push(null);
}

/**
 * A string or a number other than NaN: its own index key up to type (a Map or Set keys it by BSON
 * equality, -0 and 0 as one), and `===` compares it as MongoDB does. Look-up shortcuts take these.
 */
export function isPlainKey(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && value === value);
}

/** A string that is equal for exactly the values MongoDB's index considers equal. */
export function encodeKey(value: KeyValue): string {
  if (value === EMPTY_ARRAY_KEY) return 'u';
  if (value === null || value === undefined) return 'n';
  if (typeof value === 'number') return `f${Object.is(value, -0) ? 0 : value}`;
  if (typeof value === 'bigint') return `f${value}`;
  if (typeof value === 'string') return `s${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return value ? 'b1' : 'b0';
  if (value instanceof Date) return `d${value.getTime()}`;
  if (Array.isArray(value)) return `a[${value.map(encodeKey).join(',')}]`;
  if (value instanceof RegExp) return `r${String(value)}`;
  if (isPlainObject(value)) {
    return `o{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${encodeKey(v)}`)
      .join(',')}}`;
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the last resort, for a value of no type above
  return `x${String(value)}`;
}

/**
 * The key a unique index's map holds for a value of a single-field index: a string that does not
 * start with U+0000 is its own key, anything else U+0000 followed by its `encodeKey`. As injective
 * as `encodeKey` (the two forms differ in their first character), and a slug, the usual value, is
 * looked up without building a string: `encodeKey` made one (quoted, prefixed, then flattened and
 * hashed) for each of the two or three look-ups a write makes, where the slug's own string keeps
 * its hash once computed.
 */
export function ownerKey(value: KeyValue): string {
  return typeof value === 'string' && (value.length === 0 || value.charCodeAt(0) !== 0) ? value : `\u0000${encodeKey(value)}`;
}

/** Values equal as index keys (1 and 1.0, Dates by time) kept once, in their order; a `$in` may list hundreds. */
export function distinctValues<V extends KeyValue>(values: readonly V[]): V[] {
  const seen = new Set<string>();
  const out: V[] = [];
  for (const value of values) {
    const key = encodeKey(value);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(value);
  }
  return out;
}

/** Deep equality under MongoDB's rules (used to tell whether an update modified a document). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === undefined && b === undefined) return true;
  if (a === undefined || b === undefined) return false;
  return typeRank(a) === typeRank(b) && compareValues(a, b) === 0;
}

type ObjectCloner = (source: Record<string, unknown>, clone: (value: unknown) => unknown) => Record<string, unknown>;

/** Cloners by key count, then key list; documents of a collection share a handful of shapes. */
const cloners = new Map<number, Array<{ keys: readonly string[]; cloner: ObjectCloner }>>();
const MAX_CLONERS_PER_LENGTH = 16;

/**
 * A cloner for objects with exactly these keys, as one object literal. V8 turns an object built by
 * assigning more than a dozen computed keys into a slow dictionary-mode object (several times the
 * memory, and every property read a hash look-up); a literal keeps documents in fast mode.
 */
function clonerFor(keys: readonly string[]): ObjectCloner | null {
  const shapes = cloners.get(keys.length) ?? [];
  // Key lists are compared element by element (property names are interned strings): no allocation.
  for (const shape of shapes) {
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      if (shape.keys[i] !== keys[i]) {
        same = false;
        break;
      }
    }
    if (same) return shape.cloner;
  }
  if (shapes.length >= MAX_CLONERS_PER_LENGTH) return null;
  const fields = keys.map((key) => {
    const name = JSON.stringify(key);
    // A literal "__proto__" key would set the prototype; a computed one creates the field.
    return `${key === '__proto__' ? `[${name}]` : name}: clone(source[${name}])`;
  });
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- code generation on purpose: the field names are JSON string literals
  const cloner = new Function('source', 'clone', `return { ${fields.join(', ')} };`) as ObjectCloner;
  shapes.push({ keys: [...keys], cloner });
  cloners.set(keys.length, shapes);
  return cloner;
}

/**
 * A deep copy of a stored value: plain objects, arrays, Dates and primitives copied directly (several
 * times faster than structuredClone on documents, and reads clone every returned document);
 * anything else goes through structuredClone, which also refuses what cannot be stored.
 */
export function cloneValue<T>(value: T): T {
  return copyValue(value, cloneValue, false);
}

/** Thrown by frozenCopy on an undefined anywhere in the value (the caller names where). */
export class UndefinedInValue extends Error {}

/**
 * cloneValue and deepFreeze (src/lib/freeze.ts) in one walk, refusing undefined anywhere with
 * UndefinedInValue: what a write stores. One walk instead of three per stored document.
 */
export function frozenCopy<T>(value: T): T {
  return copyValue(value, frozenCopy, true);
}

function copyValue<T>(value: T, self: <V>(value: V) => V, freeze: boolean): T {
  if (value === null) return value;
  // `typeof value === '…'` tests, not the result kept in a variable: the optimizing compiler turns
  // each test into a type check, while a kept result is a call to the `typeof` builtin per value.
  if (typeof value !== 'object') {
    if (freeze && value === undefined) throw new UndefinedInValue();
    return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
  }
  // Dates keep their setters (a Date cannot be frozen); nothing in the service mutates one.
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = self(value[i] as unknown);
    return (freeze ? Object.freeze(out) : out) as T;
  }
  if (!isPlainObject(value)) return freeze ? deepFreeze(structuredClone(value)) : structuredClone(value);
  const keys = Object.keys(value);
  const cloner = clonerFor(keys);
  let out: Record<string, unknown>;
  if (cloner !== null) out = cloner(value, self);
  else {
    out = {};
    for (const key of keys) {
      const copy = self(value[key]);
      if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
      else out[key] = copy;
    }
  }
  return (freeze ? Object.freeze(out) : out) as T;
}
