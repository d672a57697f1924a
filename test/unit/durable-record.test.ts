/**
 * The durable engine's record encoding (src/storage/durable/record.ts): whatever a document holds
 * that the engine stores comes back from the log exactly — Dates (valid or not), NaN, ±Infinity, -0,
 * any string, an own `__proto__` key — and the document given to putRecord is never changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { assertStorable, decodeRecord, frame, putRecord, putRecords, UnstorableValueError } from '../../src/storage/durable/record.js';

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

/** A record's JSON: what follows its checksum and length, without the newline. */
const jsonOf = (record: Buffer): Buffer => record.subarray(record.indexOf(0x20, 9) + 1, -1);

const roundTrip = (doc: object) => {
  const record = decodeRecord(jsonOf(putRecord('events', doc)).toString('utf8'));
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

  it('writes a string as the UTF-8 of its standard JSON, whatever it holds', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: fc.constantFrom('a', '€', 'é', '"', '\\', '\n', '\u007f', '\u2028', '\ud83c', '\udfb5', '\u0000'), maxLength: 12 }),
    );
    fc.assert(
      fc.property(text, (s) => {
        const bytes = putRecord('events', { _id: 1, s });
        const json = jsonOf(bytes);
        expect(json.equals(Buffer.from(JSON.stringify(['put', 'events', { _id: 1, s }]), 'utf8'))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('writes a finite number as the UTF-8 of its standard JSON, integers of every size included', () => {
    const number = fc.oneof(
      fc.integer(),
      fc.maxSafeInteger(),
      fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 31, -(2 ** 31), 2 ** 31 - 1, 1e8, 1e15, 123_456_789_012, 0),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    );
    fc.assert(
      fc.property(number, (n) => {
        const json = jsonOf(putRecord('events', { _id: 1, n }));
        expect(json.toString('utf8')).toBe(JSON.stringify(['put', 'events', { _id: 1, n }]));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes documents of ten-odd fields in a row as their standard JSON, whatever names they share', () => {
    // Variations of one set of names (a name left out, undefined, added, moved), as a collection's
    // documents come: any writer that reuses work from the document before must still be exact.
    const base = ['_id', 'slug', 'status', 'title', 'é "quoted"', '__proto__', 'startUtc', 'cost', 'venueId', 'tagIds'];
    const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }));
    const variation = fc.record({
      drop: fc.option(fc.nat({ max: base.length - 1 }), { nil: undefined }),
      undefinedAt: fc.option(fc.nat({ max: base.length - 1 }), { nil: undefined }),
      extra: fc.option(fc.constantFrom('website', '_id', 'zzz'), { nil: undefined }),
      swap: fc.option(fc.nat({ max: base.length - 2 }), { nil: undefined }),
      values: fc.array(scalar, { minLength: base.length + 1, maxLength: base.length + 1 }),
    });
    fc.assert(
      fc.property(fc.array(variation, { minLength: 1, maxLength: 8 }), (variations) => {
        const docs = variations.map(({ drop, undefinedAt, extra, swap, values }) => {
          const keys = [...base];
          if (swap !== undefined) [keys[swap], keys[swap + 1]] = [keys[swap + 1]!, keys[swap]!];
          if (drop !== undefined) keys.splice(drop, 1);
          if (extra !== undefined && !keys.includes(extra)) keys.push(extra);
          const doc = Object.create(Object.prototype) as Record<string, unknown>;
          keys.forEach((key, i) => Object.defineProperty(doc, key, { value: i === undefinedAt ? undefined : values[i], enumerable: true, writable: true, configurable: true }));
          return doc;
        });
        // JSON.stringify leaves undefined fields out too; __proto__ is an own field here.
        for (const doc of docs) expect(jsonOf(putRecord('events', doc)).toString('utf8')).toBe(JSON.stringify(['put', 'events', doc]));
        const { data, ends } = putRecords('events', docs);
        docs.forEach((doc, i) => expect(jsonOf(data.subarray(i === 0 ? 0 : ends[i - 1], ends[i])).toString('utf8')).toBe(JSON.stringify(['put', 'events', doc])));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a long string whole when its text past ASCII needs a bigger buffer', () => {
    // The ASCII before the first é is written before the encoder knows it needs 3 bytes a unit for
    // the rest; growing the buffer then must carry that prefix over (it once kept only what was
    // before the string: a record with a valid checksum and a hole, cut with all later ones on restart).
    for (const length of [21_000, 30_000, 70_000, 300_000]) {
      const description = `${'a'.repeat(length)}é and more`;
      const bytes = putRecord('events', { _id: length, description });
      const json = jsonOf(bytes);
      expect(json.equals(Buffer.from(JSON.stringify(['put', 'events', { _id: length, description }]), 'utf8'))).toBe(true);
      expect(decodeRecord(json.toString('utf8'))).toMatchObject({ type: 'put', doc: { description } });
    }
  });

  it("writes a Date's milliseconds as JSON writes the number", () => {
    const times = [0, 1, -1, 9, 10, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 99_999_999, 100_000_000, 1_795_717_237_188, -1_795_717_237_188, 8.64e15, -8.64e15];
    for (const time of times) {
      const bytes = putRecord('events', { _id: 1, at: new Date(time) });
      expect(bytes.toString('utf8')).toContain(`{"$date":${JSON.stringify(time)}}`);
      expect(roundTrip({ _id: 1, at: new Date(time) })).toEqual({ _id: 1, at: new Date(time) });
    }
  });

  it('writes a batch as the records putRecord makes, one after another, and says where each ends', () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(key, value, { maxKeys: 4 }), { minLength: 1, maxLength: 12 }), fc.nat({ max: 3000 }), (fieldSets, pad) => {
        // Short and long records (a head of 11 to 14 bytes) and a batch past the encoder's 64 KiB.
        const docs = fieldSets.map((fields, i) => ({ ...fields, _id: i + 1, pad: i % 3 === 0 ? 'é'.repeat(pad * 10) : 'p'.repeat(pad % 90) }));
        const { data, ends } = putRecords('events', docs);
        const singles = docs.map((doc) => putRecord('events', doc));
        expect(data.equals(Buffer.concat(singles))).toBe(true);
        let end = 0;
        expect(ends).toEqual(singles.map((record) => (end += record.length)));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a batch holding a document it cannot store, naming where, and writes the next batch whole', () => {
    expect(() => putRecords('events', [{ _id: 1, title: 'fine' }, { _id: 2, bad: new Map() }])).toThrow(/document\.bad holds a Map object/);
    const docs = [{ _id: 3, title: 'after' }, { _id: 4, title: 'é'.repeat(40_000) }];
    expect(putRecords('events', docs).data.equals(Buffer.concat(docs.map((doc) => putRecord('events', doc))))).toBe(true);
  });

  it('frames each record whole: every record handed out stays intact while later ones are written', () => {
    const check = (record: Buffer) => {
      const text = record.toString('latin1');
      const [crc, length] = text.split(' ', 2) as [string, string];
      const json = record.subarray(crc.length + length.length + 2, -1);
      expect(record[record.length - 1]).toBe(0x0a);
      expect(json.length).toBe(Number(length));
      expect((crc32(json) >>> 0).toString(16).padStart(8, '0')).toBe(crc);
      return json.toString('utf8');
    };
    const written: Array<{ record: Buffer; json: string }> = [];
    // With a record bigger than the encoder's buffer, refused records and checks in between.
    for (let i = 0; i < 3000; i++) {
      const doc = { _id: i + 1, title: `event ${i} ${'€'.repeat(i % 7)}`, body: i === 1501 ? 'x'.repeat(3 << 20) : 'y'.repeat(i % 900) };
      if (i % 97 === 0) expect(() => putRecord('events', { _id: i, bad: new Map(), filler: 'z'.repeat(5000) })).toThrow(UnstorableValueError);
      if (i % 89 === 0) assertStorable({ filler: 'w'.repeat(20_000) });
      const record = i % 50 === 0 ? frame(JSON.stringify(['seq', 'posts', i])) : putRecord('events', doc);
      written.push({ record, json: check(record) });
    }
    for (const { record, json } of written) expect(check(record)).toBe(json);
    expect(decodeRecord(written[1501]!.json)).toMatchObject({ type: 'put', doc: { _id: 1502 } });
  });
});
