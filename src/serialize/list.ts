/**
 * The reference's collection envelope: `rest_url` carries the effective query, and
 * `next_rest_url` / `previous_rest_url` appear only when those pages have items. We also send an
 * RFC 8288 `Link` header.
 */
import { type ServerResponse } from 'node:http';
import { totalPages } from '../query/paging.js';

export interface ListLinks {
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
}

export interface ListMeta {
  page: number;
  perPage: number;
  total: number;
  /** Effective filters, in order, without `page` and `per_page`; empty values are left out. */
  args: Array<[string, string]>;
}

function withQuery(base: string, args: Array<[string, string]>): string {
  const query = new URLSearchParams(args).toString();
  return query === '' ? base : `${base}?${query}`;
}

/**
 * `collectionUrl` is the collection's address without a trailing slash, e.g. `…/venues`.
 * Term lists link to the previous page from any page past the first, even past the end
 * (`previousPastEnd`).
 */
export function listLinks(collectionUrl: string, meta: ListMeta, previousPastEnd = false): ListLinks {
  const base = `${collectionUrl}/`;
  const rest: Array<[string, string]> = [['per_page', String(meta.perPage)], ...meta.args];
  const pages = totalPages(meta.total, meta.perPage);
  const links: ListLinks = { rest_url: withQuery(base, [['page', String(meta.page)], ...rest]) };
  if (meta.page < pages) links.next_rest_url = withQuery(base, [...rest, ['page', String(meta.page + 1)]]);
  if (meta.page > 1 && (previousPastEnd || meta.page - 1 <= pages)) {
    links.previous_rest_url = withQuery(base, meta.page === 2 ? rest : [...rest, ['page', String(meta.page - 1)]]);
  }
  return links;
}

export function listHeaders(links: ListLinks, meta: ListMeta): Record<string, string> {
  const headers: Record<string, string> = {
    'x-tec-total': String(meta.total),
    'x-tec-totalpages': String(totalPages(meta.total, meta.perPage)),
  };
  const rel = [
    links.next_rest_url ? `<${links.next_rest_url}>; rel="next"` : null,
    links.previous_rest_url ? `<${links.previous_rest_url}>; rel="prev"` : null,
  ].filter(Boolean);
  if (rel.length > 0) headers.link = rel.join(', ');
  return headers;
}

/** Reused between requests: list responses are assembled synchronously, one at a time. */
let scratch = Buffer.allocUnsafeSlow(1 << 20);

function ensureRoom(at: number, length: number): void {
  if (at + length > scratch.length) {
    const grown = Buffer.allocUnsafeSlow(Math.max(scratch.length * 2, at + length));
    scratch.copy(grown, 0, 0, at);
    scratch = grown;
  }
}

/**
 * Bytes are copied with TypedArray#set and a comma stored as one byte: a page is assembled from
 * dozens of items, and Buffer#copy and Buffer#write cost more per call than the copy itself.
 */
function append(at: number, bytes: Buffer | string): number {
  if (typeof bytes === 'string') {
    ensureRoom(at, Buffer.byteLength(bytes));
    return at + scratch.write(bytes, at);
  }
  ensureRoom(at, bytes.length);
  scratch.set(bytes, at);
  return at + bytes.length;
}

const COMMA = 0x2c;

function appendComma(at: number): number {
  ensureRoom(at, 1);
  scratch[at] = COMMA;
  return at + 1;
}

/** An item of jsonEnvelope: encoded JSON, or the consecutive parts of one (see withJsonMember). */
export type JsonItem = Buffer | ReadonlyArray<Buffer | string>;

/**
 * Response bodies are cut from shared slabs, as Node pools small Buffers: a body of tens of KB
 * is past Node's pool, and an ArrayBuffer of its own per response costs more than copying it.
 *
 * A slab is used again once every body cut from it has been sent (`releaseWhenSent`). A slab is
 * memory outside the JavaScript heap, and V8 starts a full collection whenever that has grown by
 * 64 MB: with a fresh slab each time one fills up, 300 responses of 20 KB a second did so every
 * ten seconds, each a pass over the whole heap (1.5 s of marking at a million events). A body
 * whose response is never reported sent keeps its slab out of reuse; the slab is then simply
 * collected like any garbage (the pool holds slabs weakly).
 */
interface Slab {
  buffer: Buffer;
  at: number;
  /** Bodies cut from it and not yet reported sent. */
  pending: number;
  /** No more bodies are cut from it; it is reused once `pending` is 0. */
  full: boolean;
  /** A body may still be in use (its response was aborted before it was written): never reused. */
  lost: boolean;
}

export class BodySlabs {
  private readonly slabs = new WeakMap<ArrayBuffer, Slab>();
  private readonly free: Slab[] = [];
  private current: Slab;
  /** How many slabs were allocated (tests, diagnostics). */
  allocated = 0;

  /** 4 MB: a page of 50 events is about 200 KB, and a body past an eighth of a slab gets a Buffer of its own. */
  constructor(
    private readonly slabBytes = 4 << 20,
    private readonly maxFree = 3,
  ) {
    this.current = this.newSlab();
  }

  /** A Buffer of `length` bytes for a body; report it with `sent` once its response is over. */
  take(length: number): Buffer {
    // Past an eighth of a slab: a Buffer of its own (rare, and a slab would fill up at once).
    if (length > this.slabBytes / 8) return Buffer.allocUnsafe(length);
    let slab = this.current;
    if (slab.at + length > this.slabBytes) {
      slab.full = true;
      this.recycle(slab);
      slab = this.current = this.free.pop() ?? this.newSlab();
    }
    const out = slab.buffer.subarray(slab.at, slab.at + length);
    // Keep the next body 8-byte aligned.
    slab.at += (length + 7) & ~7;
    slab.pending += 1;
    return out;
  }

  /**
   * Lets the body's slab be reused once the response is over: 'finish' comes when the last bytes
   * have been handed to the operating system, so after it nothing reads the body any more; a
   * response closed without 'finish' (the client went away mid-write) may leave a write still
   * queued, and its slab is never reused.
   */
  releaseWhenSent(response: { once(event: 'finish' | 'close', listener: () => void): unknown }, body: Buffer): void {
    let finished = false;
    response.once('finish', () => {
      finished = true;
    });
    response.once('close', () => this.sent(body, finished));
  }

  /** Reports a body taken from `take` as done with: `written` false when it may still be read (aborted write). */
  sent(body: Buffer, written: boolean): void {
    const slab = this.slabs.get(body.buffer as ArrayBuffer);
    if (slab === undefined) return;
    if (!written) slab.lost = true;
    slab.pending -= 1;
    this.recycle(slab);
  }

  private recycle(slab: Slab): void {
    if (!slab.full || slab.pending > 0 || slab.lost || this.free.length >= this.maxFree) return;
    slab.at = 0;
    slab.full = false;
    this.free.push(slab);
  }

  private newSlab(): Slab {
    const slab: Slab = { buffer: Buffer.allocUnsafeSlow(this.slabBytes), at: 0, pending: 0, full: false, lost: false };
    this.slabs.set(slab.buffer.buffer as ArrayBuffer, slab);
    this.allocated += 1;
    return slab;
  }
}

const bodySlabs = new BodySlabs();

/** How many body slabs this process has allocated (diagnostics, tests). */
export function bodySlabsAllocated(): number {
  return bodySlabs.allocated;
}

/** The slab of a jsonEnvelope body is reused once its response is over (BodySlabs.releaseWhenSent). */
export function releaseWhenSent(response: ServerResponse, body: Buffer): void {
  bodySlabs.releaseWhenSent(response, body);
}

/**
 * A collection response assembled from items already encoded as JSON: `{"<name>":[…],…rest}` with
 * the rest of the envelope in its schema order, as one Buffer. It skips the response serializer,
 * and the byte count and encoding of a 100 KB string — the bulk of a list request's cost once
 * items are remembered (serializeEventJson). Each item is copied out as soon as it is produced,
 * before the next is asked for: an item may be a view into an arena that producing the next one
 * overwrites (json-arena.ts).
 */
export function jsonEnvelope(name: string, items: Iterable<JsonItem>, rest: Record<string, unknown>): Buffer {
  let at = append(0, `{${JSON.stringify(name)}:[`);
  let first = true;
  for (const item of items) {
    if (!first) at = appendComma(at);
    first = false;
    if (Buffer.isBuffer(item)) at = append(at, item);
    else for (const part of item) at = append(at, part);
  }
  const tail = JSON.stringify(rest);
  at = append(at, tail === '{}' ? ']}' : `],${tail.slice(1)}`);
  const out = bodySlabs.take(at);
  scratch.copy(out, 0, 0, at);
  return out;
}

/** An encoded JSON object with one more member at its end (`{…}` → `{…,"name":value}`), as parts: nothing copied. */
export function withJsonMember(object: Buffer, name: string, value: unknown): JsonItem {
  return [object.subarray(0, object.length - 1), `,${JSON.stringify(name)}:${JSON.stringify(value)}}`];
}

/** What Fastify sends with serialized JSON responses; pre-encoded bodies say the same. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
