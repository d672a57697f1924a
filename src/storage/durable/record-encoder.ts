/**
 * Writes a stored value as the log's JSON (see record.ts: Dates and the numbers JSON cannot carry
 * are tagged) straight into bytes, in one walk.
 *
 * Why not `JSON.stringify`: a logged write had to copy the document to tag its Dates, build a JS
 * string (two bytes a character as soon as one character is past Latin-1 — a `€` in a price
 * will do), measure its UTF-8 length and then encode it: ~11 µs an event, a fifth of a bulk load
 * on the durable engine. Here ASCII text is copied a character a byte, and only a string that needs
 * escaping or is not ASCII goes through `JSON.stringify` (its escaping, lone surrogates included,
 * stays the standard's).
 *
 * What cannot be stored throws `Unstorable` (the caller names the path, found only then).
 */
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

export class RecordEncoder {
  /** Reused from record to record; grows to the largest record written. */
  private out = Buffer.allocUnsafe(64 * 1024);
  private at = 0;

  /** Starts a record: what was written before is dropped. */
  reset(): void {
    this.at = 0;
  }

  /** The bytes written since `reset` (a view: valid until the next `reset`). */
  get bytes(): Buffer {
    return this.out.subarray(0, this.at);
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.at + bytes));
    this.out.copy(bigger, 0, 0, this.at);
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

  private byte(value: number): void {
    this.room(1);
    this.out[this.at++] = value;
  }

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
    // Escapes or non-ASCII: the standard's escaping, encoded as UTF-8 (at most 3 bytes a UTF-16 unit).
    const json = JSON.stringify(text);
    this.room(json.length * 3);
    this.at += this.out.write(json, this.at, 'utf8');
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
