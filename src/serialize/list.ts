/**
 * The reference's collection envelope (§3.1, §3.4): `rest_url` carries the effective query, and
 * `next_rest_url` / `previous_rest_url` appear only when those pages have items. We also send an
 * RFC 8288 `Link` header (design §4).
 */
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
 * (`previousPastEnd`, reference §3.3).
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

function append(at: number, bytes: Buffer | string): number {
  const length = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
  if (at + length > scratch.length) {
    const grown = Buffer.allocUnsafeSlow(Math.max(scratch.length * 2, at + length));
    scratch.copy(grown, 0, 0, at);
    scratch = grown;
  }
  return at + (typeof bytes === 'string' ? scratch.write(bytes, at) : bytes.copy(scratch, at));
}

/** An item of jsonEnvelope: encoded JSON, or the consecutive parts of one (see withJsonMember). */
export type JsonItem = Buffer | ReadonlyArray<Buffer | string>;

/**
 * Response bodies are cut from shared slabs, as Node pools small Buffers: a body of tens of KB
 * is past Node's pool, and an ArrayBuffer of its own per response costs more than copying it.
 * A slab lives until the last body cut from it has been sent.
 */
const SLAB_BYTES = 1 << 20;
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let slabAt = 0;

function bodyBuffer(length: number): Buffer {
  if (length > SLAB_BYTES / 8) return Buffer.allocUnsafe(length);
  if (slabAt + length > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabAt = 0;
  }
  const out = slab.subarray(slabAt, slabAt + length);
  // Keep the next body 8-byte aligned.
  slabAt += (length + 7) & ~7;
  return out;
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
    if (!first) at = append(at, ',');
    first = false;
    if (Buffer.isBuffer(item)) at = append(at, item);
    else for (const part of item) at = append(at, part);
  }
  const tail = JSON.stringify(rest);
  at = append(at, tail === '{}' ? ']}' : `],${tail.slice(1)}`);
  const out = bodyBuffer(at);
  scratch.copy(out, 0, 0, at);
  return out;
}

/** An encoded JSON object with one more member at its end (`{…}` → `{…,"name":value}`), as parts: nothing copied. */
export function withJsonMember(object: Buffer, name: string, value: unknown): JsonItem {
  return [object.subarray(0, object.length - 1), `,${JSON.stringify(name)}:${JSON.stringify(value)}}`];
}

/** What Fastify sends with serialized JSON responses; pre-encoded bodies say the same. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
