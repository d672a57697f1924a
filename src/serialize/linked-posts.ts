import { formatWallClock } from '../lib/dates/index.js';
import { autoParagraph } from '../lib/html.js';
import { type OrganizerDoc, type VenueDoc } from '../storage/port.js';
import { type SerializeContext, imageObject, permalink } from './context.js';

/**
 * The leading keys venues and organizers share, up to and including `image`.
 * Empty values are `''` here and dropped by `dropEmpty`, as the reference does.
 */
export function linkedPostHead(doc: VenueDoc | OrganizerDoc, type: 'venue' | 'organizer', ctx: SerializeContext) {
  return {
    id: doc._id,
    // Always present, "0" for none, as in the event object: the reference's author is a user id.
    author: String(doc.authorId),
    status: doc.status,
    date: formatWallClock(doc.dateUtc, ctx.siteTimezone),
    date_utc: formatWallClock(doc.dateUtc, 'UTC'),
    modified: formatWallClock(doc.modifiedUtc, ctx.siteTimezone),
    modified_utc: formatWallClock(doc.modifiedUtc, 'UTC'),
    url: permalink(ctx, type, doc.slug),
    [type]: doc.name,
    description: autoParagraph(doc.description),
    excerpt: autoParagraph(doc.excerpt),
    slug: doc.slug,
    image: doc.image ? imageObject(doc.image) : '',
  };
}

/** Drops the reference's "empty" values, `""` and `"0"` — except `author`, which is always there. */
export function dropEmpty<T>(fields: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const key in fields) {
    const value = fields[key];
    if ((value !== '' && value !== '0') || key === 'author') out[key] = value;
  }
  return out as T;
}

/**
 * When a venue's or organizer's representation last changed (`Last-Modified`): its modification
 * time, or its publication when a scheduled record became public later than that. Its
 * representation holds nothing of other records.
 */
export function lastModifiedOf(doc: Pick<VenueDoc, 'modifiedUtc' | 'dateUtc'>, now: Date): Date {
  const published = doc.dateUtc.getTime() <= now.getTime() ? doc.dateUtc : null;
  return published !== null && published > doc.modifiedUtc ? published : doc.modifiedUtc;
}
