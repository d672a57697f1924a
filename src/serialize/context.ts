/**
 * What a serializer needs to know about the request: where links point (the root and host the
 * request came in on) and the site time zone; and the app's caches it serializes with.
 */
import { type StoredImage } from '../storage/port.js';
import type { SerializeCaches } from './caches.js';

export interface SerializeContext {
  /** `{origin}{root}/calendar/events/v1`, no trailing slash: base of `rest_url` and `urls`. */
  apiBase: string;
  /** PUBLIC_URL, or the request's origin: base of permalinks (`url`). */
  siteUrl: string;
  siteTimezone: string;
  /** Single reads (GET by id or slug) add `json_ld`. */
  single: boolean;
  now: Date;
  /** Identifies everything above that a representation depends on (memo key, see memo.ts). */
  key: string;
  /** The app's serialization caches (caches.ts); no part of a representation, so not in `key`. */
  caches: SerializeCaches;
}

const contextKeys = new Map<string, string>();
const MAX_CONTEXT_KEYS = 64;

/**
 * The memo key of a context: every field a serializer reads, `now` aside (serializers do not read
 * it). One string object per distinct key: the memos compare the key of every item they hold with
 * the request's, and the same object compares equal at once, where an equal copy is compared
 * character by character.
 */
export function contextKey(ctx: Omit<SerializeContext, 'key' | 'now' | 'caches'>): string {
  const key = `${ctx.apiBase}\n${ctx.siteUrl}\n${ctx.siteTimezone}\n${ctx.single ? 1 : 0}`;
  const known = contextKeys.get(key);
  if (known !== undefined) return known;
  // Keys come from the Host header too: bounded so junk hosts cannot grow it.
  if (contextKeys.size >= MAX_CONTEXT_KEYS) contextKeys.clear();
  contextKeys.set(key, key);
  return key;
}

const globalIdBases = new Map<string, string>();
const MAX_GLOBAL_ID_BASES = 64;

/** `<host[+path]>?id=<id>` like the reference's Global_ID (port dropped). */
export function globalId(ctx: SerializeContext, id: number): string {
  let base = globalIdBases.get(ctx.siteUrl);
  if (base === undefined) {
    const url = new URL(ctx.siteUrl);
    base = `${url.hostname}${url.pathname.replace(/\/+$/, '')}`;
    // Site URLs come from PUBLIC_URL or the Host header: bounded so junk hosts cannot grow it.
    if (globalIdBases.size >= MAX_GLOBAL_ID_BASES) globalIdBases.clear();
    globalIdBases.set(ctx.siteUrl, base);
  }
  return `${base}?id=${id}`;
}

export function permalink(ctx: SerializeContext, type: 'event' | 'venue' | 'organizer', slug: string): string {
  return `${ctx.siteUrl}/${type}/${encodeURIComponent(slug)}/`;
}

export function imageObject(image: StoredImage): { url: string; extension: string } {
  return { url: image.url, extension: image.extension };
}
