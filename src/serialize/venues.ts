import { autoParagraph, escapeHtml } from '../lib/html.js';
import { type VenueResponse } from '../schemas/venues.js';
import { type VenueDoc } from '../storage/port.js';
import { type SerializeContext, globalId } from './context.js';
import { dropEmpty, linkedPostHead } from './linked-posts.js';

/** Schema.org Place for json_ld, also used as an event's `location`. */
export function venueJsonLd(doc: VenueDoc): Record<string, unknown> {
  const ld: Record<string, unknown> = {
    '@type': 'Place',
    name: doc.name,
    description: escapeHtml(autoParagraph(doc.description)),
    url: '',
    address: {
      '@type': 'PostalAddress',
      streetAddress: doc.address,
      addressLocality: doc.city,
      addressRegion: doc.stateprovince || doc.state || doc.province,
      postalCode: doc.zip,
      addressCountry: doc.country,
    },
    telephone: doc.phone,
    sameAs: doc.website,
  };
  if (doc.location) {
    ld.geo = { '@type': 'GeoCoordinates', latitude: doc.location.coordinates[1], longitude: doc.location.coordinates[0] };
  }
  return ld;
}

/**
 * The venue object of keys from `id` to `json_ld` are dropped when empty.
 * Remembered per stored document and context in the app's venue memo (caches.ts): a venue is
 * embedded in many events, a near-me page embeds the venues of a whole city, and rebuilding one on
 * a miss costs more than the event around it. The default size, SERIALIZATION_MEMO_ENTRIES, has
 * room for every venue of a large catalogue (20,000 beside a million events).
 */
export function serializeVenue(doc: VenueDoc, ctx: SerializeContext): VenueResponse {
  return ctx.caches.venues.get(doc, ctx.key, () => buildVenue(doc, ctx));
}

function buildVenue(doc: VenueDoc, ctx: SerializeContext): VenueResponse {
  const full: Record<string, unknown> = {
    ...linkedPostHead(doc, 'venue', ctx),
    address: doc.address,
    city: doc.city,
    country: doc.country,
    province: doc.province,
    state: doc.state,
    zip: doc.zip,
    phone: doc.phone,
    website: doc.website,
    stateprovince: doc.stateprovince,
    json_ld: ctx.single && doc.status === 'publish' ? venueJsonLd(doc) : '',
  };
  const out = dropEmpty<VenueResponse>(full);
  out.show_map = doc.showMap;
  out.show_map_link = doc.showMapLink;
  const id = globalId(ctx, doc._id);
  out.global_id = id;
  out.global_id_lineage = [id];
  if (doc.location) {
    out.geo_lat = doc.location.coordinates[1];
    out.geo_lng = doc.location.coordinates[0];
    if (doc.geoSource) out.geo_source = doc.geoSource;
  }
  return out;
}
