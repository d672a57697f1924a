/**
 * The on-disk record format of the durable embedded engine, shared by the write-ahead log and the
 * snapshots: one record per line,
 *
 *     <crc32 of the JSON, 8 hex digits> <byte length of the JSON> <JSON>\n
 *
 * The JSON is an array: `["put", collection, document]`, `["del", collection, id]`,
 * `["seq", sequence, value]`, plus the file headers `["wal", FORMAT, generation]` and
 * `["snapshot", FORMAT, generation]` and the snapshot trailer `["end", recordCount]`.
 *
 * The checksum and the length make a torn or corrupt record detectable: a crash can leave the last
 * record incomplete, or garbage after it, and the reader stops at the first record that does not
 * check out (it never skips over one: what follows a bad record cannot be trusted to be in order).
 *
 * Values JSON cannot carry exactly are tagged: a Date is `{"$date": <milliseconds since 1970>}`
 * (`null` for an invalid Date; an ISO string in format 1 files), a non-finite number or -0 is
 * `{"$number": "NaN" | "Infinity" | "-Infinity" | "-0"}`.
 * The API never stores `$`-prefixed field names; an object whose one field is `$date` or `$number`
 * is refused all the same (the reader would take it for a tag).
 */
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { type CollectionName, COLLECTION_NAMES, type SequenceName } from '../port.js';
import { isPlainObject } from '../embedded/bson.js';
import { isTagKey, NEWLINE, RecordEncoder, Unstorable } from './record-encoder.js';

/** Bumped when the record format changes incompatibly: written in new files; an older version refuses them. */
export const FORMAT = 3;
/**
 * Formats this version reads: 1 wrote a Date as an ISO string, 2 as milliseconds (an older version
 * would read those as invalid dates, hence the bump), 3 may hold records of the `idempotency`
 * collection (an older version would take the first one for a corrupt record and cut the log there).
 */
export const READABLE_FORMATS: readonly number[] = [1, 2, 3];

export type StoredDocument = { _id: number } & Record<string, unknown>;

export type LogRecord =
  | { type: 'put'; collection: CollectionName; doc: StoredDocument }
  | { type: 'del'; collection: CollectionName; id: number }
  | { type: 'seq'; sequence: SequenceName; value: number }
  | { type: 'wal'; format: number; generation: number }
  | { type: 'snapshot'; format: number; generation: number }
  | { type: 'end'; count: number };

/** A value that cannot be written to the log (it would not come back as it went in). */
export class UnstorableValueError extends TypeError {
  constructor(path: string, what: string) {
    super(`${path} holds ${what}, which the durable storage cannot store.`);
    this.name = 'UnstorableValueError';
  }
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // A `__proto__` key must stay an own data property, never become the prototype.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** One encoder for every record (records are encoded one at a time, synchronously). */
const encoder = new RecordEncoder();

/** Refuses (UnstorableValueError, naming the path) a value the log cannot hold; `path` names the value. */
export function assertStorable(value: unknown, path = 'document'): void {
  encoder.scratch();
  encodeNamed(value, path);
}

/** Encodes `value`, a refusal turned into an UnstorableValueError naming the path (found only then). */
function encodeNamed(value: unknown, path: string): void {
  try {
    encoder.value(value);
  } catch (error) {
    if (error instanceof Unstorable) throw unstorableIn(value, path) ?? new UnstorableValueError(path, 'a value');
    throw error;
  }
}

/** What cannot be stored: null when `value` can be (its children aside). */
function unstorableWhat(value: unknown): string | null {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
      return null;
    case 'object':
      if (value instanceof Date || Array.isArray(value)) return null;
      if (!isPlainObject(value)) return `a ${value.constructor?.name ?? 'non-plain'} object`;
      {
        const fields = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
        return fields.length === 1 && isTagKey(fields[0]!) ? `an object whose only field is ${fields[0]} (the log's own tag)` : null;
      }
    default:
      return `a value of type ${typeof value}`;
  }
}

/** The first value under `value` (itself included) that cannot be stored, with its path. */
function unstorableIn(value: unknown, path: string): UnstorableValueError | null {
  const what = unstorableWhat(value);
  if (what !== null) return new UnstorableValueError(path, what);
  if (value === null || typeof value !== 'object' || value instanceof Date) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableIn(value[i], `${path}.${i}`);
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (child === undefined) continue;
    const found = unstorableIn(child, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/** Inverse of the encoder's tags (record-encoder.ts), in place on freshly parsed JSON. */
export function reviveJsonValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (element !== null && typeof element === 'object') value[i] = reviveJsonValue(element);
    }
    return value;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length === 1) {
    if (keys[0] === '$date') {
      // Milliseconds since format 2; an ISO string in format 1 files.
      const at = object.$date;
      return new Date(typeof at === 'number' || typeof at === 'string' ? at : Number.NaN);
    }
    if (keys[0] === '$number') return Number(object.$number);
  }
  for (const key of keys) {
    const child = object[key];
    if (child !== null && typeof child === 'object') setOwn(object, key, reviveJsonValue(child));
  }
  return object;
}

/** Frames one JSON text as a record line, as bytes. */
export function frame(json: string): Buffer {
  encoder.beginRecord();
  encoder.json(json);
  return encoder.frame();
}

/** A put record's JSON, after `beginRecord`. */
function encodePut(collection: CollectionName, doc: unknown): void {
  encoder.raw('["put",');
  encoder.string(collection);
  encoder.raw(',');
  encodeNamed(doc, 'document');
  encoder.raw(']');
}

/** The record of a stored document. Throws UnstorableValueError (nothing is written then). */
export function putRecord(collection: CollectionName, doc: object): Buffer {
  encoder.beginRecord();
  encodePut(collection, doc);
  return encoder.frame();
}

/**
 * The records of stored documents, one after another as one buffer (what an insertMany logs), and
 * where each ends in it. Throws UnstorableValueError, naming the document, when one cannot be stored.
 */
export function putRecords(collection: CollectionName, docs: readonly object[]): { data: Buffer; ends: number[] } {
  const ends: number[] = [];
  encoder.beginBatch();
  try {
    for (const doc of docs) {
      encoder.beginRecord();
      encodePut(collection, doc);
      ends.push(encoder.endRecord());
    }
  } catch (error) {
    encoder.scratch();
    throw error;
  }
  return { data: encoder.endBatch(), ends };
}

export function delRecord(collection: CollectionName, id: number): Buffer {
  return frame(JSON.stringify(['del', collection, id]));
}

export function seqRecord(sequence: SequenceName, value: number): Buffer {
  return frame(JSON.stringify(['seq', sequence, value]));
}

export function headerRecord(kind: 'wal' | 'snapshot', generation: number): Buffer {
  return frame(JSON.stringify([kind, FORMAT, generation]));
}

export function endRecord(count: number): Buffer {
  return frame(JSON.stringify(['end', count]));
}

const SEQUENCES: readonly string[] = ['posts', 'terms'];
const isId = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isCollection = (value: unknown): value is CollectionName => (COLLECTION_NAMES as readonly unknown[]).includes(value);

/** Checks the shape of a record whose checksum matched; null when it is not one we write. */
export function decodeRecord(json: string): LogRecord | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const [type, a, b] = parsed as unknown[];
  switch (type) {
    case 'put': {
      if (!isCollection(a) || b === null || typeof b !== 'object' || Array.isArray(b)) return null;
      const doc = reviveJsonValue(b) as StoredDocument;
      return isId(doc._id) ? { type, collection: a, doc } : null;
    }
    case 'del':
      return isCollection(a) && isId(b) ? { type, collection: a, id: b } : null;
    case 'seq':
      return typeof a === 'string' && SEQUENCES.includes(a) && isId(b) ? { type, sequence: a as SequenceName, value: b } : null;
    case 'wal':
    case 'snapshot':
      return isId(a) && isId(b) ? { type, format: a, generation: b } : null;
    case 'end':
      return isId(a) ? { type, count: a } : null;
    default:
      return null;
  }
}

export interface ScanStop {
  /** Byte offset of the first record that does not check out. */
  offset: number;
  /** `incomplete`: the file ends inside the record (a torn append); `corrupt`: it is malformed. */
  kind: 'incomplete' | 'corrupt';
  detail: string;
}

export interface ScanResult {
  /** Bytes of whole, valid records from the start of the file. */
  validBytes: number;
  fileBytes: number;
  records: number;
  /** null when every byte of the file belongs to a valid record. */
  stop: ScanStop | null;
}

const SPACE = 0x20;
const READ_CHUNK = 8 * 1024 * 1024;
/** No record we write comes close; a larger length field is garbage, not a record to wait for. */
const MAX_RECORD_BYTES = 1024 * 1024 * 1024;

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x61 + 10;
  return -1;
}

type Parsed = { next: number; record: LogRecord } | { need: true } | { corrupt: string };

/** Parses the record at `start` of `buf[0, end)`. */
function parseAt(buf: Buffer, start: number, end: number): Parsed {
  // <8 hex> SP <digits> SP
  if (end - start < 11) return { need: true };
  let crc = 0;
  for (let i = 0; i < 8; i++) {
    const v = hexValue(buf[start + i]!);
    if (v < 0) return { corrupt: 'bad checksum field' };
    crc = crc * 16 + v;
  }
  if (buf[start + 8] !== SPACE) return { corrupt: 'bad record header' };
  let length = 0;
  let p = start + 9;
  const digitsFrom = p;
  for (;;) {
    if (p >= end) return { need: true };
    const byte = buf[p]!;
    if (byte === SPACE) break;
    if (byte < 0x30 || byte > 0x39 || p - digitsFrom >= 10) return { corrupt: 'bad length field' };
    length = length * 10 + (byte - 0x30);
    p++;
  }
  if (p === digitsFrom || length > MAX_RECORD_BYTES) return { corrupt: 'bad length field' };
  const jsonStart = p + 1;
  const jsonEnd = jsonStart + length;
  if (jsonEnd + 1 > end) return { need: true };
  if (buf[jsonEnd] !== NEWLINE) return { corrupt: 'record does not end where its length says' };
  const body = buf.subarray(jsonStart, jsonEnd);
  if (crc32(body) >>> 0 !== crc) return { corrupt: 'checksum mismatch' };
  const record = decodeRecord(body.toString('utf8'));
  if (record === null) return { corrupt: 'checksum matches but the record is not one this version writes' };
  return { next: jsonEnd + 1, record };
}

/**
 * Reads the records of a file in order, calling `onRecord` for each valid one, and stops at the
 * first that does not check out. Reads in chunks, so a large snapshot is never one string.
 */
export async function scanRecords(path: string, onRecord: (record: LogRecord, offset: number) => void): Promise<ScanResult> {
  const handle = await open(path, 'r');
  try {
    const fileBytes = (await handle.stat()).size;
    let buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(fileBytes, 1)));
    let bufStart = 0; // file offset of buf[0]
    let filled = 0; // valid bytes in buf
    let pos = 0; // parse position within buf
    let records = 0;
    let eof = fileBytes === 0;
    for (;;) {
      const parsed = parseAt(buf, pos, filled);
      if ('record' in parsed) {
        onRecord(parsed.record, bufStart + pos);
        records++;
        pos = parsed.next;
        if (bufStart + pos === fileBytes) return { validBytes: fileBytes, fileBytes, records, stop: null };
        continue;
      }
      if ('corrupt' in parsed) {
        return { validBytes: bufStart + pos, fileBytes, records, stop: { offset: bufStart + pos, kind: 'corrupt', detail: parsed.corrupt } };
      }
      if (eof) {
        const offset = bufStart + pos;
        if (offset === fileBytes) return { validBytes: fileBytes, fileBytes, records, stop: null };
        return { validBytes: offset, fileBytes, records, stop: { offset, kind: 'incomplete', detail: `the file ends inside a record (${fileBytes - offset} bytes)` } };
      }
      // Need more bytes: keep the unparsed rest, grow the buffer if a single record is larger.
      const rest = filled - pos;
      if (rest === buf.length || buf.length - rest < READ_CHUNK / 2) {
        const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, rest + READ_CHUNK));
        buf.copy(bigger, 0, pos, filled);
        buf = bigger;
      } else {
        buf.copy(buf, 0, pos, filled);
      }
      bufStart += pos;
      filled = rest;
      pos = 0;
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, bufStart + filled);
      filled += bytesRead;
      if (bytesRead === 0 || bufStart + filled >= fileBytes) eof = true;
    }
  } finally {
    await handle.close();
  }
}
