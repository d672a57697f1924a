import { autoParagraph, escapeHtml } from '../lib/html.js';
import { type OrganizerResponse } from '../schemas/organizers.js';
import { type OrganizerDoc } from '../storage/port.js';
import { type SerializeContext, globalId } from './context.js';
import { dropEmpty, linkedPostHead } from './linked-posts.js';

/** Schema.org Person for json_ld, also an event's `organizer`. */
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

/**
 * The organizer object of empty values are dropped; the global ids stay.
 * Remembered per stored document and context in the app's organizer memo (caches.ts), sized like
 * the venues' one: an organizer is embedded in many events.
 */
export function serializeOrganizer(doc: OrganizerDoc, ctx: SerializeContext): OrganizerResponse {
  return ctx.caches.organizers.get(doc, ctx.key, () => buildOrganizer(doc, ctx));
}

function buildOrganizer(doc: OrganizerDoc, ctx: SerializeContext): OrganizerResponse {
  const id = globalId(ctx, doc._id);
  const full: Record<string, unknown> = {
    ...linkedPostHead(doc, 'organizer', ctx),
    phone: doc.phone,
    website: doc.website,
    email: doc.email,
    json_ld: ctx.single && doc.status === 'publish' ? organizerJsonLd(doc) : '',
    global_id: id,
    global_id_lineage: [id],
  };
  return dropEmpty<OrganizerResponse>(full);
}
