import { costDetails, formatCost } from '../lib/cost.js';
import { dateDetails, formatWallClock, isoWithOffset, timezoneAbbr } from '../lib/dates/index.js';
import { autoParagraph, escapeHtml } from '../lib/html.js';
import { type EventResponse } from '../schemas/events.js';
import { type EventDoc, type OrganizerDoc, type TermDoc, type VenueDoc } from '../storage/port.js';
import { type SerializeContext, globalId, imageObject, permalink } from './context.js';
import { organizerJsonLd, serializeOrganizer } from './organizers.js';
import { serializeEventTerm } from './terms.js';
import { serializeVenue, venueJsonLd } from './venues.js';

/** One collator for every event: `localeCompare` with options builds a new one per comparison (hot path). */
const byNameCollator = new Intl.Collator('en', { sensitivity: 'base' });

/** The linked records an event's representation embeds, loaded by the service. */
export interface EventRelations {
  venue: VenueDoc | null;
  organizers: OrganizerDoc[];
  categories: Array<{ doc: TermDoc; count: number }>;
  tags: Array<{ doc: TermDoc; count: number }>;
}

export const NO_RELATIONS: EventRelations = { venue: null, organizers: [], categories: [], tags: [] };

function eventJsonLd(doc: EventDoc, rel: EventRelations, ctx: SerializeContext, url: string): Record<string, unknown> {
  const summary = autoParagraph(doc.excerpt !== '' ? doc.excerpt : doc.description);
  const ld: Record<string, unknown> = {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: doc.title,
    description: escapeHtml(summary),
    url,
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    eventStatus: 'https://schema.org/EventScheduled',
    startDate: isoWithOffset(doc.startUtc, doc.timezone),
    endDate: isoWithOffset(doc.endUtc, doc.timezone),
  };
  if (doc.image) ld.image = doc.image.url;
  if (rel.venue) ld.location = venueJsonLd(rel.venue);
  const [firstOrganizer] = rel.organizers;
  if (firstOrganizer) ld.organizer = organizerJsonLd(firstOrganizer);
  const details = costDetails(doc.cost, doc.currencySymbol, doc.currencyPosition);
  const [price] = details.values;
  if (price !== undefined) {
    ld.offers = {
      '@type': 'Offer',
      price,
      priceCurrency: 'USD',
      url,
      category: 'primary',
      availability: 'inStock',
      validFrom: isoWithOffset(new Date(Date.UTC(doc.dateUtc.getUTCFullYear(), doc.dateUtc.getUTCMonth(), doc.dateUtc.getUTCDate())), 'UTC'),
    };
  }
  ld.performer = 'Organization';
  return ld;
}

/**
 * Everything of an event's representation that depends on the event document alone, in the
 * reference's key order, with empty placeholders where the linked records go.
 */
function eventHead(doc: EventDoc, ctx: SerializeContext): EventResponse {
  const id = globalId(ctx, doc._id);
  const url = permalink(ctx, 'event', doc.slug);
  const start = formatWallClock(doc.startUtc, doc.timezone);
  const end = formatWallClock(doc.endUtc, doc.timezone);
  const utcStart = formatWallClock(doc.startUtc, 'UTC');
  const utcEnd = formatWallClock(doc.endUtc, 'UTC');
  const head: EventResponse = {
    id: doc._id,
    global_id: id,
    global_id_lineage: [id],
    author: String(doc.authorId),
    status: doc.status,
    date: formatWallClock(doc.dateUtc, ctx.siteTimezone),
    date_utc: formatWallClock(doc.dateUtc, 'UTC'),
    modified: formatWallClock(doc.modifiedUtc, ctx.siteTimezone),
    modified_utc: formatWallClock(doc.modifiedUtc, 'UTC'),
    url,
    rest_url: `${ctx.apiBase}/events/${doc._id}`,
    title: doc.title,
    description: autoParagraph(doc.description),
    excerpt: autoParagraph(doc.excerpt),
    slug: doc.slug,
    image: doc.image ? imageObject(doc.image) : false,
    all_day: doc.allDay,
    start_date: start,
    start_date_details: dateDetails(start),
    end_date: end,
    end_date_details: dateDetails(end),
    utc_start_date: utcStart,
    utc_start_date_details: dateDetails(utcStart),
    utc_end_date: utcEnd,
    utc_end_date_details: dateDetails(utcEnd),
    timezone: doc.timezone,
    timezone_abbr: timezoneAbbr(doc.timezone, doc.startUtc),
    cost: formatCost(doc.cost, doc.currencySymbol, doc.currencyPosition),
    cost_details: costDetails(doc.cost, doc.currencySymbol, doc.currencyPosition),
    website: doc.website ?? url,
    show_map: doc.showMap,
    show_map_link: doc.showMapLink,
    hide_from_listings: doc.hideFromListings,
    sticky: doc.sticky,
    featured: doc.featured,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    custom_fields: [],
    ticketed: doc.ticketed,
    post_parent: doc.postParent ?? 0,
  };
  // An occurrence of a series says so; a single event's bytes stay the reference's.
  if (doc.seriesId !== undefined) {
    head.is_recurring = true;
    head.series_id = doc.seriesId;
    head.occurrence_date = doc.occurrenceDate ?? '';
    head.is_exception = doc.isException ?? false;
  }
  return head;
}

const byName = (a: { doc: TermDoc }, b: { doc: TermDoc }): number => byNameCollator.compare(a.doc.name, b.doc.name) || a.doc._id - b.doc._id;

function termsOf(terms: EventRelations['categories'], taxonomy: 'categories' | 'tags', ctx: SerializeContext) {
  if (terms.length === 0) return [];
  const sorted = terms.length === 1 ? terms : [...terms].sort(byName);
  // A term's representation carries its event count, part of the memo key.
  return sorted.map((t) => ctx.caches.eventTerms.get(t.doc, `${ctx.key}\n${taxonomy}\n${t.count}`, () => serializeEventTerm(t.doc, taxonomy, t.count, ctx)));
}

/** The representations of an event's linked records, under the head's placeholder keys. */
function linkedRecords(rel: EventRelations, ctx: SerializeContext) {
  return {
    categories: termsOf(rel.categories, 'categories', ctx),
    tags: termsOf(rel.tags, 'tags', ctx),
    venue: rel.venue ? serializeVenue(rel.venue, ctx) : [],
    organizer: rel.organizers.map((o) => serializeOrganizer(o, ctx)),
  };
}

/** The event object of The Events Calendar API, field for field, then our extension fields. */
export function serializeEvent(doc: EventDoc, rel: EventRelations, ctx: SerializeContext): EventResponse {
  // Spreading keeps the head's key order; the linked records take their placeholders' places.
  const out: EventResponse = { ...eventHead(doc, ctx), ...linkedRecords(rel, ctx) };
  // json_ld only on single reads of published, unprotected events.
  if (ctx.single && doc.status === 'publish' && doc.password === null) {
    out.json_ld = eventJsonLd(doc, rel, ctx, out.url);
  }
  return out;
}

function sameTerms(a: EventRelations['categories'], b: EventRelations['categories']): boolean {
  return a.length === b.length && a.every((term, i) => term.doc === b[i]!.doc && term.count === b[i]!.count);
}

/** Whether two relation sets hold the same stored documents (and term counts). */
function sameRelations(a: EventRelations, b: EventRelations): boolean {
  return (
    a.venue === b.venue &&
    a.organizers.length === b.organizers.length &&
    a.organizers.every((organizer, i) => organizer === b.organizers[i]) &&
    sameTerms(a.categories, b.categories) &&
    sameTerms(a.tags, b.tags)
  );
}

/**
 * `serializeEvent` as UTF-8 JSON, remembered per stored event while its linked records stay the
 * same objects (and term counts the same numbers) in the app's arena (caches.ts): the list endpoint
 * assembles its response from these (see `jsonEnvelope`), so an event read again is neither
 * rebuilt, nor stringified, nor encoded again. Byte-for-byte what the route's response serializer
 * would write (tested). The Buffer is a view into the arena, valid until the next call: copy it
 * first (jsonEnvelope does). The default arena, SERIALIZATION_ARENA_MB=64, holds about 12,000
 * events of 5 KB: the pages being read now, not the whole calendar; at a million events, near-me
 * and search pages spread over many more events than at 100,000, and half this room left two in
 * three of their events to be encoded again.
 */
export function serializeEventJson(doc: EventDoc, rel: EventRelations, ctx: SerializeContext): Buffer {
  return ctx.caches.eventJsons.get(
    doc,
    ctx.key,
    rel,
    (remembered) => sameRelations(remembered, rel),
    () => encodeEvent(doc, rel, ctx),
  );
}

/** The linked records' places in the head's JSON, exactly as JSON.stringify writes the placeholders. */
const LINKED_PLACEHOLDERS = '"categories":[],"tags":[],"venue":[],"organizer":[]';

/** JSON of the (memoised, frozen) representations of linked records, which many events embed. */
const linkedJsons = new WeakMap<object, string>();

function linkedJson(representation: object): string {
  let json = linkedJsons.get(representation);
  if (json === undefined) {
    json = JSON.stringify(representation);
    linkedJsons.set(representation, json);
  }
  return json;
}

/**
 * `JSON.stringify(serializeEvent(…))` without stringifying the venue, organizers and terms again
 * for every event that embeds them (a venue is most of an event's JSON): the head is stringified
 * with its empty placeholders, and those are replaced by the linked records' remembered JSON.
 * JSON.stringify writes an object as its members' JSON in order, so the bytes are the same. The
 * placeholder text cannot come from a string value, whose quotes JSON escapes.
 */
function encodeEvent(doc: EventDoc, rel: EventRelations, ctx: SerializeContext): string {
  if (ctx.single) return JSON.stringify(serializeEvent(doc, rel, ctx));
  const head = JSON.stringify(eventHead(doc, ctx));
  const at = head.indexOf(LINKED_PLACEHOLDERS);
  if (at < 0) return JSON.stringify(serializeEvent(doc, rel, ctx));
  const json = (value: object): string => (Array.isArray(value) ? `[${value.map(linkedJson).join(',')}]` : linkedJson(value));
  const linked = Object.entries(linkedRecords(rel, ctx))
    .map(([key, value]) => `"${key}":${json(value)}`)
    .join(',');
  return head.slice(0, at) + linked + head.slice(at + LINKED_PLACEHOLDERS.length);
}

/**
 * A password-protected event in a list, for a caller without its password: the
 * listing keeps identity, dates and title; everything else is blanked exactly as the reference does.
 */
export function redactProtected(out: EventResponse): EventResponse {
  return {
    ...out,
    description: '',
    excerpt: '',
    image: false,
    all_day: null,
    cost: '',
    cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
    website: '',
    show_map: null,
    show_map_link: null,
    hide_from_listings: null,
    sticky: null,
    featured: null,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    custom_fields: [],
    ticketed: null,
  };
}
