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

const COMMA = Buffer.from(',');

/**
 * A collection response assembled from items already encoded as JSON: `{"<name>":[…],…rest}` with
 * the rest of the envelope in its schema order. Sent as a Buffer, it skips the response
 * serializer, the byte count of a 100 KB string and its encoding on the socket — the bulk of a
 * list request's cost once items are remembered (serializeEventJson).
 */
export function jsonEnvelope(name: string, items: readonly Buffer[], rest: Record<string, unknown>): Buffer {
  const parts: Buffer[] = [Buffer.from(`{${JSON.stringify(name)}:[`)];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  const tail = JSON.stringify(rest);
  parts.push(Buffer.from(tail === '{}' ? ']}' : `],${tail.slice(1)}`));
  return Buffer.concat(parts);
}

/** An encoded JSON object with one more member at its end (`{…}` → `{…,"name":value}`). */
export function withJsonMember(object: Buffer, name: string, value: unknown): Buffer {
  return Buffer.concat([object.subarray(0, object.length - 1), Buffer.from(`,${JSON.stringify(name)}:${JSON.stringify(value)}}`)]);
}

/** What Fastify sends with serialized JSON responses; pre-encoded bodies say the same. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
