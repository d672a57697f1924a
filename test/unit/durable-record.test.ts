/**
 * The durable engine's record encoding (src/storage/durable/record.ts): whatever a document holds
 * that the engine stores comes back from the log exactly — Dates (valid or not), NaN, ±Infinity, -0,
 * any string, an own `__proto__` key — and the document given to putRecord is never changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecord, putRecord, UnstorableValueError } from '../../src/storage/durable/record.js';

/** An exact description of a value (toEqual would take -0 for 0 and cannot tell invalid Dates apart from each other). */
function canon(value: unknown): unknown {
  if (value instanceof Date) return ['date', Number.isNaN(value.getTime()) ? 'invalid' : value.getTime()];
  if (typeof value === 'number') return ['number', Object.is(value, -0) ? '-0' : String(value)];
  if (Array.isArray(value)) return value.map(canon);
  if (value !== null && typeof value === 'object') {
    return Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => [key, canon((value as Record<string, unknown>)[key])]);
  }
  return value;
}

const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', '$date', '$number', 'constructor', 'toJSON'));
/** Objects shaped like the log's tags are refused (see below); every other object is storable. */
const tagShaped = (object: Record<string, unknown>) => {
  const fields = Object.keys(object).filter((k) => object[k] !== undefined);
  return fields.length === 1 && ['$date', '$number'].includes(fields[0]!);
};
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.double(),
    fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, 1e21, 5e-324),
    fc.boolean(),
    fc.constant(null),
    fc.date({ noInvalidDate: false }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(key, fc.option(tie('value'), { nil: undefined })), { maxLength: 5 }).map((entries) => {
      const object: Record<string, unknown> = {};
      for (const [k, v] of entries) Object.defineProperty(object, k, { value: v, enumerable: true, writable: true, configurable: true });
      return tagShaped(object) ? { ...object, other: 1 } : object;
    }),
  ),
}));

const roundTrip = (doc: object) => {
  const bytes = putRecord('events', doc);
  const text = bytes.toString('utf8');
  const json = text.slice(text.indexOf(' ', 9) + 1, -1);
  const record = decodeRecord(json);
  if (record?.type !== 'put') throw new Error('not a put record');
  return record.doc;
};

describe('durable record encoding', () => {
  it('gives back every storable document exactly, and leaves the one it was given alone', () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), fc.integer({ min: 1 }), (fields, id) => {
        const doc = Object.create(Object.prototype) as Record<string, unknown>;
        for (const [k, v] of Object.entries(fields)) Object.defineProperty(doc, k, { value: v, enumerable: true, writable: true, configurable: true });
        doc._id = id;
        const before = canon(doc);
        const restored = roundTrip(doc);
        expect(canon(restored)).toEqual(before);
        expect(canon(doc)).toEqual(before);
        expect(Object.getPrototypeOf(restored)).toBe(Object.prototype);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what it cannot give back, naming where it is', () => {
    expect(() => putRecord('events', { _id: 1, list: [1, undefined] })).toThrow(new UnstorableValueError('document.list.1', 'a value of type undefined'));
    expect(() => putRecord('events', { _id: 1, nested: { at: [{ map: new Map() }] } })).toThrow(/document\.nested\.at\.0\.map holds a Map object/);
    expect(() => putRecord('events', { _id: 1, n: 10n })).toThrow(/document\.n holds a value of type bigint/);
    expect(() => putRecord('events', { _id: 1, f: () => 1 })).toThrow(/document\.f holds a value of type function/);
    // The reader would take these for its tags: refused rather than turned into a Date or a number.
    expect(() => putRecord('events', { _id: 1, x: [{ $date: 5 }] })).toThrow(/document\.x\.0 holds an object whose only field is \$date/);
    expect(() => putRecord('events', { _id: 1, x: { $number: 'NaN' } })).toThrow(/document\.x holds an object whose only field is \$number/);
    expect(() => putRecord('events', { _id: 1, x: { $date: 5, gone: undefined } })).toThrow(/document\.x holds an object whose only field is \$date/);
    expect(roundTrip({ _id: 1, x: { $date: 5, other: 1 } })).toEqual({ _id: 1, x: { $date: 5, other: 1 } });
  });
});
