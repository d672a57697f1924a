/**
 * Writes a stored value as the log's JSON (see record.ts: Dates and the numbers JSON cannot carry
 * are tagged) straight into bytes, in one walk.
 *
 * Why not `JSON.stringify`: a logged write had to copy the document to tag its Dates, build a JS
 * string (two bytes a character as soon as one character is past Latin-1 — a `€` in a price
 * will do), measure its UTF-8 length and then encode it: ~11 µs an event, a fifth of a bulk load
 * on the durable engine. Here text is written a UTF-16 unit at a time, and only a string that
 * needs escaping or holds surrogates goes through `JSON.stringify` (its escaping, lone surrogates
 * included, stays the standard's). The record's frame is written around the JSON in place.
 *
 * What cannot be stored throws `Unstorable` (the caller names the path, found only then).
 */
import { crc32 } from 'node:zlib';
import { isPlainObject } from '../embedded/bson.js';
import { codeAt } from '../../lib/chars.js';

/** Thrown while encoding a value the log cannot give back as it was. */
export class Unstorable extends Error {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

/** An object whose one (defined) field is a tag's would be read back as the tagged value. */
export function isTagKey(key: string): boolean {
  return key === '$date' || key === '$number';
}

/**
 * Room left before a record's JSON for its head (`<8 hex digits> <length> `) while the JSON is
 * written: the head of a JSON of 100 to 999 bytes, most records. Once the JSON's length is known,
 * a JSON whose head is longer or shorter is moved to fit (one copy within the buffer).
 */
const HEAD_GUESS = 13;
/** Ends every record. */
export const NEWLINE = 0x0a;
/** Batches larger than this leave the encoder's buffer to the collector afterwards. */
const KEPT_BUFFER_BYTES = 4 * 1024 * 1024;
const HEX = [0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66];

/** Decimal digits of a non-negative integer below 2^31. */
function digitCount(value: number): number {
  let count = 1;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) count++;
  return count;
}

/**
 * Encodes values as the log's JSON and frames them as records (record.ts) in one reused buffer,
 * which stays in the CPU's cache; framed records are copied out of it once, whole: one record
 * (`beginRecord` … `frame`), or a batch of records written one after another (`beginBatch`,
 * `beginRecord` … `endRecord` for each, `endBatch`) as one buffer. (Encoding straight into fresh
 * buffers, to save that copy, was slower: a bulk load's 80 MB of records were then written a byte
 * at a time into memory the cache had never seen. A buffer per record of a batch cost an
 * allocation and a copy each, and the log copied them all again to write them.)
 */
export class RecordEncoder {
  /** Reused from record to record; grows to the largest record (or batch) written. */
  private out = Buffer.allocUnsafe(64 * 1024);
  private at = 0;
  /** Where the record being written starts (its head goes there). */
  private recordStart = 0;
  private batching = false;

  /** Starts encoding a value that will not be framed (a check: the bytes are dropped). */
  scratch(): void {
    this.batching = false;
    this.at = 0;
  }

  /** Starts a batch: the records up to `endBatch` go out as one buffer. */
  beginBatch(): void {
    this.batching = true;
    this.at = 0;
  }

  /** Starts a record: its JSON follows room for its head; `endRecord` (or `frame`) finishes it. */
  beginRecord(): void {
    this.recordStart = this.batching ? this.at : 0;
    this.room(HEAD_GUESS);
    this.at = this.recordStart + HEAD_GUESS;
  }

  /**
   * Finishes the record begun by `beginRecord` in place: `<crc32 of the JSON, 8 hex digits> <byte
   * length of the JSON> <JSON>\n`. Returns where it ends in the batch.
   */
  endRecord(): number {
    this.room(1);
    const jsonStart = this.recordStart + HEAD_GUESS;
    const length = this.at - jsonStart;
    const crc = crc32(this.out.subarray(jsonStart, this.at)) >>> 0;
    const lengthDigits = digitCount(length);
    const headLength = 10 + lengthDigits;
    if (headLength !== HEAD_GUESS) {
      this.room(headLength - HEAD_GUESS + 1);
      this.out.copyWithin(this.recordStart + headLength, jsonStart, this.at);
      this.at += headLength - HEAD_GUESS;
    }
    // After the room above (it may have replaced the buffer).
    const bytes = this.out;
    let at = this.recordStart;
    for (let shift = 28; shift >= 0; shift -= 4) bytes[at++] = HEX[(crc >>> shift) & 15]!;
    bytes[at++] = 0x20;
    for (let i = lengthDigits - 1, rest = length; i >= 0; i--) {
      const next = (rest / 10) | 0;
      bytes[at + i] = 0x30 + rest - next * 10;
      rest = next;
    }
    bytes[at + lengthDigits] = 0x20;
    bytes[this.at++] = NEWLINE;
    return this.at;
  }

  /** Finishes the record begun by `beginRecord` (outside a batch), as a buffer of its own. */
  frame(): Buffer {
    this.endRecord();
    return this.copyOut();
  }

  /** The batch's records, one after another, as one buffer of their own. */
  endBatch(): Buffer {
    this.batching = false;
    const batch = this.copyOut();
    if (this.out.length > KEPT_BUFFER_BYTES) this.out = Buffer.allocUnsafe(64 * 1024);
    return batch;
  }

  /** What was written since the last `beginBatch` (or the record, outside a batch), as a buffer of its own. */
  private copyOut(): Buffer {
    const copy = Buffer.allocUnsafe(this.at);
    this.out.copy(copy, 0, 0, this.at);
    return copy;
  }

  /**
   * Makes room for `bytes` more after `at`. The whole buffer is carried over, not only what is before
   * `at`: a string's opening quote and ASCII prefix are written past `at` before it moves (`string`),
   * and must survive when the rest of the string needs a bigger buffer (`unicode`).
   */
  private room(bytes: number): void {
    if (this.at + bytes <= this.out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.at + bytes));
    this.out.copy(bigger);
    this.out = bigger;
  }

  /** Bytes that are ASCII already (punctuation, the digits of a number). */
  raw(text: string): void {
    const n = text.length;
    this.room(n);
    const out = this.out;
    const at = this.at;
    for (let i = 0; i < n; i++) out[at + i] = codeAt(text, i);
    this.at = at + n;
  }

  /** A JSON text made elsewhere, as UTF-8. */
  json(text: string): void {
    this.room(3 * text.length);
    this.at += this.out.write(text, this.at, 'utf8');
  }

  private byte(value: number): void {
    this.room(1);
    this.out[this.at++] = value;
  }

  /**
   * A string as JSON in UTF-8: the same bytes as `JSON.stringify`'s text. ASCII without anything
   * to escape — nearly all text — takes the first loop (kept this small: a bigger one made a bulk
   * load slower); other text continues in `unicode`. Characters are read through `codeAt`: with
   * `text.charCodeAt`, the many kinds of strings a document holds made every character a generic
   * call (src/lib/chars.ts), and encoding took 2.5 times as long in a load as on parsed documents.
   */
  string(text: string): void {
    const n = text.length;
    this.room(n + 2);
    const out = this.out;
    const at = this.at;
    out[at] = QUOTE;
    let i = 0;
    for (; i < n; i++) {
      const c = codeAt(text, i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) break;
      out[at + 1 + i] = c;
    }
    if (i === n) {
      out[at + 1 + n] = QUOTE;
      this.at = at + n + 2;
      return;
    }
    this.unicode(text, i);
  }

  /**
   * The rest of a string from its `i`th UTF-16 unit (the ASCII before it is written): characters
   * past ASCII are encoded here, 2 or 3 bytes each; a string with something to escape or with
   * surrogates goes through `JSON.stringify`, whose escaping (lone surrogates included) stays the
   * standard's.
   */
  private unicode(text: string, from: number): void {
    const n = text.length;
    this.room(3 * n + 2);
    const out = this.out;
    let at = this.at + 1 + from;
    for (let i = from; i < n; i++) {
      const c = codeAt(text, i);
      if (c < 0x80) {
        if (c < 0x20 || c === QUOTE || c === BACKSLASH) return this.escaped(text);
        out[at++] = c;
      } else if (c < 0x800) {
        out[at++] = 0xc0 | (c >> 6);
        out[at++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c > 0xdfff) {
        out[at++] = 0xe0 | (c >> 12);
        out[at++] = 0x80 | ((c >> 6) & 0x3f);
        out[at++] = 0x80 | (c & 0x3f);
      } else return this.escaped(text);
    }
    out[at++] = QUOTE;
    this.at = at;
  }

  /** A string with characters to escape or surrogates, written over what `string` began. */
  private escaped(text: string): void {
    this.json(JSON.stringify(text));
  }

  private number(value: number): void {
    if (Number.isFinite(value) && !Object.is(value, -0)) this.raw(String(value));
    else {
      this.raw('{"$number":"');
      this.raw(Object.is(value, -0) ? '-0' : String(value));
      this.raw('"}');
    }
  }

  /**
   * A safe integer's digits (a Date's milliseconds), written here: `String` of a 13-digit number
   * took 0.2–0.6 µs, and every event holds four dates. Two halves below 2^31 keep to integer maths.
   */
  private integer(value: number): void {
    this.room(17);
    if (value < 0) {
      this.out[this.at++] = 0x2d;
      value = -value;
    }
    if (value < 0x80000000) return this.digits(value, digitCount(value));
    const high = Math.floor(value / 1e8);
    this.digits(high, digitCount(high));
    this.digits(value - high * 1e8, 8);
  }

  /** `count` digits of a non-negative integer below 2^31 (zero-padded on the left). */
  private digits(value: number, count: number): void {
    const out = this.out;
    let at = this.at + count;
    this.at = at;
    for (let i = 0; i < count; i++) {
      const next = (value / 10) | 0;
      out[--at] = 0x30 + value - next * 10;
      value = next;
    }
  }

  /**
   * One value. `typeof value === '…'` tests rather than a `switch (typeof value)`: the optimizing
   * compiler turns each test into a type check, while the switch made it call the `typeof` builtin
   * for the string to compare (once per field of every document).
   */
  value(value: unknown): void {
    if (typeof value === 'string') return this.string(value);
    if (typeof value === 'number') return this.number(value);
    if (typeof value === 'boolean') return this.raw(value ? 'true' : 'false');
    if (typeof value !== 'object') throw new Unstorable();
    if (value === null) return this.raw('null');
    if (value instanceof Date) {
      // Milliseconds (format 2): formatting and parsing ISO strings was a visible share of a write.
      const time = value.getTime();
      this.raw('{"$date":');
      if (Number.isNaN(time)) this.raw('null');
      else this.integer(time);
      return this.byte(0x7d);
    }
    if (Array.isArray(value)) return this.array(value);
    return this.object(value);
  }

  private array(value: readonly unknown[]): void {
    this.byte(0x5b);
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      // JSON would write an undefined element (or a hole) as null: not what was stored.
      if (element === undefined) throw new Unstorable();
      if (i > 0) this.byte(COMMA);
      this.value(element);
    }
    this.byte(0x5d);
  }

  private object(value: object): void {
    if (!isPlainObject(value)) throw new Unstorable();
    this.byte(0x7b);
    let fields = 0;
    let lastKey = '';
    // for-in with a lookup by its own key is the one fast way V8 walks an object's fields (through
    // its enum cache); Object.keys or Object.entries cost a generic lookup or an array per field.
    // A plain object inherits no enumerable field (its prototype is Object.prototype or null).
    for (const key in value) {
      const child = (value as Record<string, unknown>)[key];
      // Left out, like the driver's ignoreUndefined (and JSON.stringify).
      if (child === undefined) continue;
      if (fields > 0) this.byte(COMMA);
      fields += 1;
      lastKey = key;
      this.string(key);
      this.byte(COLON);
      this.value(child);
    }
    if (fields === 1 && isTagKey(lastKey)) throw new Unstorable();
    this.byte(0x7d);
  }
}
