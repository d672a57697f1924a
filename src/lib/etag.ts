/**
 * Entity tags and the conditional request headers that compare them (RFC 9110 §8.8.3, §13.1).
 * A tag is strong and derived from the bytes of the representation, so two responses share a
 * tag exactly when they share their bytes.
 */
import { hash } from 'node:crypto';

/** The strong entity tag of a representation: a quoted SHA-1 of its bytes (base64url). */
export function etagOf(body: string | Uint8Array): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

/** The entity tags of an `If-Match` / `If-None-Match` value; `*` stays `*`. Malformed members are left out. */
export function parseEtagList(value: string): string[] {
  const tags: string[] = [];
  for (const raw of value.split(',')) {
    const member = raw.trim();
    if (member === '*') tags.push('*');
    else if (member.length >= 2 && member.endsWith('"') && (member.startsWith('"') || member.startsWith('W/"'))) tags.push(member);
  }
  return tags;
}

const opaque = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** `If-None-Match`: weak comparison; `*` matches any current representation. */
export function noneMatchHits(header: string, etag: string): boolean {
  const wanted = opaque(etag);
  return parseEtagList(header).some((tag) => tag === '*' || opaque(tag) === wanted);
}

/**
 * `If-Match`: strong comparison (a weak tag never matches); `*` matches when a current
 * representation exists. `etag` null: none exists.
 */
export function ifMatchHolds(header: string, etag: string | null): boolean {
  if (etag === null) return false;
  return parseEtagList(header).some((tag) => tag === '*' || (!tag.startsWith('W/') && tag === etag));
}

/** `If-Modified-Since`: true when the representation changed after the date (whole seconds); an invalid date is ignored. */
export function modifiedSince(header: string, lastModified: Date): boolean {
  const since = Date.parse(header);
  if (Number.isNaN(since)) return true;
  return Math.floor(lastModified.getTime() / 1000) * 1000 > since;
}
