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
 * Room left before a record's JSON for its head (`<8 hex digits> <length> `): a length of up to
 * 15 digits. The head is written once the JSON's length and checksum are known, right-aligned
 * against the JSON.
 */
const HEAD_ROOM = 25;
/** Ends every record. */
export const NEWLINE = 0x0a;

/**
 * Encodes values as the log's JSON and frames them as records (record.ts) in one reused buffer,
 * which stays in the CPU's cache; a framed record is copied out of it once, whole. (Encoding
 * straight into fresh buffers, to save that copy, was slower: a bulk load's 80 MB of records
 * were then written a byte at a time into memory the cache had never seen.)
 */
export class RecordEncoder {
  /** Reused from record to record; grows to the largest record written. */
  private out = Buffer.allocUnsafe(64 * 1024);
  private at = 0;

  /** Starts encoding a value that will not be framed (a check: the bytes are dropped). */
  scratch(): void {
    this.at = 0;
  }

  /** Starts a record: its JSON follows its head room; `frame` finishes it. */
  beginRecord(): void {
    this.at = HEAD_ROOM;
  }

  /**
   * Finishes the record begun by `beginRecord`: `<crc32 of the JSON, 8 hex digits> <byte length
   * of the JSON> <JSON>\n`, as a buffer of its own.
   */
  frame(): Buffer {
    this.room(1);
    const out = this.out;
    const length = this.at - HEAD_ROOM;
    out[this.at++] = NEWLINE;
    const head = `${(crc32(out.subarray(HEAD_ROOM, HEAD_ROOM + length)) >>> 0).toString(16).padStart(8, '0')} ${length} `;
    const from = HEAD_ROOM - head.length;
    for (let i = 0; i < head.length; i++) out[from + i] = head.charCodeAt(i);
    const record = Buffer.allocUnsafe(this.at - from);
    out.copy(record, 0, from, this.at);
    return record;
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
    for (let i = 0; i < n; i++) out[at + i] = text.charCodeAt(i);
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
   * load slower); other text continues in `unicode`.
   */
  string(text: string): void {
    const n = text.length;
    this.room(n + 2);
    const out = this.out;
    const at = this.at;
    out[at] = QUOTE;
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
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
      const c = text.charCodeAt(i);
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

  value(value: unknown): void {
    switch (typeof value) {
      case 'string':
        return this.string(value);
      case 'number':
        return this.number(value);
      case 'boolean':
        return this.raw(value ? 'true' : 'false');
      case 'object':
        if (value === null) return this.raw('null');
        if (value instanceof Date) {
          // Milliseconds (format 2): formatting and parsing ISO strings was a visible share of a write.
          const time = value.getTime();
          this.raw('{"$date":');
          this.raw(Number.isNaN(time) ? 'null' : String(time));
          return this.byte(0x7d);
        }
        if (Array.isArray(value)) return this.array(value);
        return this.object(value);
      default:
        throw new Unstorable();
    }
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
