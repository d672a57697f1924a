import { escapeHtml, autoParagraph } from '../lib/html.js';
import { formatWallClock } from '../lib/dates.js';
import { type OrganizerResponse } from '../schemas/organizers.js';
import { type OrganizerDoc } from '../storage/port.js';
import { type SerializeContext, globalId, imageObject, permalink } from './context.js';

/** Schema.org Person for json_ld (reference §2.7), also an event's `organizer`. */
export function organizerJsonLd(doc: OrganizerDoc): Record<string, unknown> {
  return {
    '@type': 'Person',
    name: doc.name,
    description: escapeHtml(autoParagraph(doc.description)),
    url: doc.website,
    telephone: doc.phone,
    email: escapeHtml(doc.email),
    sameAs: doc.website,
  };
}

/** The organizer object of reference §2.5: empty values are dropped; the global ids stay. */
export function serializeOrganizer(doc: OrganizerDoc, ctx: SerializeContext): OrganizerResponse {
  const id = globalId(ctx, doc._id);
  const full: Record<string, unknown> = {
    id: doc._id,
    author: doc.authorId > 0 ? String(doc.authorId) : '',
    status: doc.status,
    date: formatWallClock(doc.dateUtc, ctx.siteTimezone),
    date_utc: formatWallClock(doc.dateUtc, 'UTC'),
    modified: formatWallClock(doc.modifiedUtc, ctx.siteTimezone),
    modified_utc: formatWallClock(doc.modifiedUtc, 'UTC'),
    url: permalink(ctx, 'organizer', doc.slug),
    organizer: doc.name,
    description: autoParagraph(doc.description),
    excerpt: autoParagraph(doc.excerpt),
    slug: doc.slug,
    image: doc.image ? imageObject(doc.image) : '',
    phone: doc.phone,
    website: doc.website,
    email: doc.email,
    json_ld: ctx.single && doc.status === 'publish' ? organizerJsonLd(doc) : '',
    global_id: id,
    global_id_lineage: [id],
  };
  return Object.fromEntries(Object.entries(full).filter(([, v]) => v !== '' && v !== '0')) as OrganizerResponse;
}
