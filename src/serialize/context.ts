/**
 * What a serializer needs to know about the request: where links point (the root and host the
 * request came in on, design §4) and the site time zone.
 */
import { type StoredImage } from '../storage/port.js';

export interface SerializeContext {
  /** `{origin}{root}/calendar/events/v1`, no trailing slash: base of `rest_url` and `urls`. */
  apiBase: string;
  /** PUBLIC_URL, or the request's origin: base of permalinks (`url`). */
  siteUrl: string;
  siteTimezone: string;
  /** Single reads (GET by id or slug) add `json_ld` (reference §2.7). */
  single: boolean;
  now: Date;
}

/** `<host[+path]>?id=<id>` like the reference's Global_ID (port dropped). */
export function globalId(ctx: SerializeContext, id: number): string {
  const url = new URL(ctx.siteUrl);
  return `${url.hostname}${url.pathname.replace(/\/+$/, '')}?id=${id}`;
}

export function permalink(ctx: SerializeContext, type: 'event' | 'venue' | 'organizer', slug: string): string {
  return `${ctx.siteUrl}/${type}/${encodeURIComponent(slug)}/`;
}

export function imageObject(image: StoredImage): { url: string; extension: string } {
  return { url: image.url, extension: image.extension };
}
